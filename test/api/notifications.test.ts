import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NOTIFICATION_KINDS } from '../../src/domain/notifications/catalogue.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { SESSION_TOKEN_HEADER } from '../../src/sdk/client-core.js';
import type { GetInboxNotificationResponse } from '../../src/sdk/wire/index.js';
import { referenceMismatches } from '../helpers/reference-shapes.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { expectApiError, rawRequest } from '../helpers/expect-api-error.js';
import { capturingLogger, createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const TEST_KIND = NOTIFICATION_KINDS.testNotification.id;
const DELETED_KIND = NOTIFICATION_KINDS.templateDeleted.id;

for (const dialect of TEST_DIALECTS) {
  describe(`notifications: settings, preferences, templates and the inbox (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let member: CoveClient;
    let ownerId: string;
    let memberId: string;
    const log = capturingLogger();

    /** Sends what is due now, as the fetch timer would. */
    const dispatch = () => test.daemon.tasks.notifications.runNow();

    /** Queues a "template deleted" notification for the member, as an event would. */
    const templateDeleted = (template: string) =>
      test.daemon.notifications.enqueue({
        kind: 'templateDeleted',
        userId: memberId,
        labels: { template, initiator: 'owner' },
        targets: [],
        createdBy: 'test',
      });

    before(async () => {
      // A secret to show it stays one; no SMTP server and no endpoint: the inbox alone delivers.
      test = await startTestDaemon({ database: dialect, flags: { notificationsWebhookSecret: 'hush-hush' }, logger: log.logger });
      owner = await createOwner(test);
      member = await createMember(test, 'member');
      ownerId = (await owner.user('me')).id;
      memberId = (await member.user('me')).id;
    });
    after(async () => test.close());

    it('shows the notifications group of the deployment config in the reference shape, the secret blanked', async () => {
      const { config } = await owner.deploymentConfig();
      const notifications = config['notifications'] as Record<string, unknown>;
      assert.equal(notifications['method'], 'smtp');
      assert.equal(notifications['max_send_attempts'], 5);
      assert.equal(notifications['retry_interval'], 5 * 60 * 1e9);
      assert.equal(notifications['lease_period'], 2 * 60 * 1e9);
      assert.equal(notifications['lease_count'], 20);
      assert.equal(notifications['fetch_interval'], 15 * 1e9);
      assert.equal(notifications['dispatch_timeout'], 60 * 1e9);
      assert.deepEqual(notifications['inbox'], { enabled: true });
      assert.deepEqual(notifications['webhook'], { endpoint: '', secret: '' });
      assert.equal(typeof (notifications['email'] as Record<string, unknown>)['smarthost'], 'string');
      assert.ok(!JSON.stringify(config).includes('hush-hush'));
    });

    it('lists every kind as a system template and the dispatch methods', async () => {
      const templates = await member.systemNotificationTemplates();
      assert.equal(templates.length, Object.keys(NOTIFICATION_KINDS).length);
      const testKind = templates.find((template) => template.id === TEST_KIND);
      assert.equal(testKind?.name, 'Test Notification');
      assert.equal(testKind?.kind, 'system');
      assert.equal(testKind?.method, '');
      assert.deepEqual(JSON.parse(testKind?.actions ?? '[]')[0].label, 'View notification settings');
      assert.deepEqual(await member.notificationDispatchMethods(), { available: ['smtp', 'webhook'], default: 'smtp' });
    });

    it('lets owners choose a kind’s method: 304 when unchanged, 400 for an unknown method, 404 for an unknown kind, 403 for members', async () => {
      await expectApiError(member.updateNotificationTemplateMethod(DELETED_KIND, 'webhook'), 403);
      await owner.updateNotificationTemplateMethod(DELETED_KIND, 'webhook');
      assert.equal((await member.systemNotificationTemplates()).find((t) => t.id === DELETED_KIND)?.method, 'webhook');
      const again = await rawRequest(test.url, 'PUT', `/notifications/templates/${DELETED_KIND}/method`, {
        body: JSON.stringify({ method: 'webhook' }),
        headers: { 'content-type': 'application/json', [SESSION_TOKEN_HEADER]: owner.token ?? '' },
      });
      assert.equal(again.status, 304);
      await expectApiError(owner.updateNotificationTemplateMethod(DELETED_KIND, 'pigeon'), 400, /method/);
      await expectApiError(owner.updateNotificationTemplateMethod('0e2e7c6b-1f7b-4f55-9c2b-3d6e3f0a9b11', 'smtp'), 404);
      await owner.updateNotificationTemplateMethod(DELETED_KIND, '');
      assert.equal((await member.systemNotificationTemplates()).find((t) => t.id === DELETED_KIND)?.method, '');
    });

    it('pauses and resumes sending for owners only, and keeps messages queued while paused', async () => {
      assert.deepEqual(await member.notificationsSettings(), { notifier_paused: false });
      await expectApiError(member.updateNotificationsSettings({ notifier_paused: true }), 403);
      await expectApiError(member.testNotification(), 403);
      assert.deepEqual(await owner.updateNotificationsSettings({ notifier_paused: true }), { notifier_paused: true });
      assert.deepEqual(await member.notificationsSettings(), { notifier_paused: true });
      const unchanged = await rawRequest(test.url, 'PUT', '/notifications/settings', {
        body: JSON.stringify({ notifier_paused: true }),
        headers: { 'content-type': 'application/json', [SESSION_TOKEN_HEADER]: owner.token ?? '' },
      });
      assert.equal(unchanged.status, 304);

      const before = (await owner.inboxNotifications()).notifications.length;
      await owner.testNotification();
      await dispatch();
      const queued = await owner.notificationMessages({ status: 'pending' });
      assert.equal(queued.length, 1, 'the test waits in the queue');
      assert.equal(queued[0]?.method, 'inbox');
      assert.equal(queued[0]?.username, 'owner');
      assert.equal(queued[0]?.template_name, 'Test Notification');
      assert.equal((await owner.inboxNotifications()).notifications.length, before);

      await owner.updateNotificationsSettings({ notifier_paused: false });
      // Pausing and resuming are in the audit log, each with its change (the still clock gives both one time).
      const changes = (await owner.auditLogs({ q: 'resource_type:notifications_settings action:write' })).audit_logs;
      const resumed = changes.find((entry) => entry.diff['notifier_paused']?.new === false);
      assert.deepEqual(resumed?.diff['notifier_paused'], { old: true, new: false, secret: false }, JSON.stringify(changes));
      assert.ok(
        changes.some((entry) => entry.diff['notifier_paused']?.new === true),
        'the pause too',
      );
      assert.equal(resumed?.user?.username, 'owner');
      await dispatch();
      const [sent] = await owner.notificationMessages({ limit: 1 });
      assert.equal(sent?.id, queued[0]?.id);
      assert.equal(sent?.status, 'sent');
      assert.equal(sent?.attempt_count, 1);
      const inbox = await owner.inboxNotifications();
      assert.equal(inbox.notifications.length, before + 1);
      const [newest] = inbox.notifications;
      assert.equal(newest?.title, 'A test notification');
      assert.match(newest?.content ?? '', new RegExp(`Hi owner, this is a test notification from ${test.daemon.url}`));
      assert.deepEqual(newest?.actions, [{ label: 'View notification settings', url: `${test.daemon.url}/deployment/notifications` }]);
      assert.equal(newest?.read_at, null);
    });

    it('lists the queue for owners only, and refuses a status it does not know', async () => {
      await expectApiError(member.notificationMessages(), 404);
      await expectApiError(owner.notificationMessages({ status: 'lost' }), 400, /status/);
    });

    it('keeps each user’s preferences: a kind turned off is not queued, and the same event is queued once', async () => {
      assert.deepEqual(await member.userNotificationPreferences('me'), []);
      const turnedOff = await member.updateUserNotificationPreferences('me', { template_disabled_map: { [DELETED_KIND]: true } });
      assert.deepEqual(
        turnedOff.map(({ id, disabled }) => ({ id, disabled })),
        [{ id: DELETED_KIND, disabled: true }],
      );
      await expectApiError(member.userNotificationPreferences('owner'), 404);
      await expectApiError(member.updateUserNotificationPreferences('owner', { template_disabled_map: { [DELETED_KIND]: true } }), 404);
      await expectApiError(member.updateUserNotificationPreferences('me', { template_disabled_map: { 'not-a-kind': true } }), 400);
      assert.equal((await owner.userNotificationPreferences('member'))[0]?.disabled, true, 'owners read anyone’s');

      await templateDeleted('python');
      await dispatch();
      assert.equal((await member.inboxNotifications()).notifications.length, 0, 'turned off: nothing queued');

      await owner.updateUserNotificationPreferences('member', { template_disabled_map: { [DELETED_KIND]: false } });
      await templateDeleted('python');
      await templateDeleted('python');
      await dispatch();
      const inbox = await member.inboxNotifications();
      assert.equal(inbox.notifications.length, 1, 'the same event is one notification');
      assert.equal(inbox.notifications[0]?.title, 'Template "python" deleted');
      assert.equal(inbox.notifications[0]?.template_id, DELETED_KIND);
      assert.equal(inbox.unread_count, 1);
    });

    it('marks notifications read and unread, all at once, and hides others’ notifications', async () => {
      await templateDeleted('ruby');
      await dispatch();
      const { notifications, unread_count } = await member.inboxNotifications();
      assert.equal(unread_count, 2);
      const ruby = notifications.find((n) => n.title.includes('ruby'));
      assert.ok(ruby);
      const read = await member.updateInboxNotificationReadStatus(ruby.id, true);
      // The reference client reads these answers: its own shapes, field for field.
      assert.deepEqual(referenceMismatches(await member.inboxNotifications(), 'ListInboxNotificationsResponse'), []);
      assert.deepEqual(referenceMismatches(read, 'UpdateInboxNotificationReadStatusResponse'), []);
      assert.deepEqual(referenceMismatches(await owner.notificationsSettings(), 'NotificationsSettings'), []);
      assert.deepEqual(referenceMismatches(await owner.notificationDispatchMethods(), 'NotificationMethodsResponse'), []);
      for (const kind of await owner.systemNotificationTemplates()) assert.deepEqual(referenceMismatches(kind, 'NotificationTemplate'), []);
      for (const preference of await member.userNotificationPreferences('me'))
        assert.deepEqual(referenceMismatches(preference, 'NotificationPreference'), []);
      assert.equal(read.notification.id, ruby.id);
      assert.notEqual(read.notification.read_at, null);
      assert.equal(read.unread_count, 1);
      assert.deepEqual(
        (await member.inboxNotifications({ read_status: 'read' })).notifications.map((n) => n.id),
        [ruby.id],
      );
      assert.ok(!(await member.inboxNotifications({ read_status: 'unread' })).notifications.some((n) => n.id === ruby.id));
      assert.equal((await member.updateInboxNotificationReadStatus(ruby.id, false)).unread_count, 2);

      const ownersOwn = (await owner.inboxNotifications()).notifications[0];
      assert.ok(ownersOwn);
      await expectApiError(member.updateInboxNotificationReadStatus(ownersOwn.id, true), 404);
      await expectApiError(member.inboxNotifications({ read_status: 'maybe' as 'all' }), 400, /read_status/);
      await expectApiError(member.inboxNotifications({ templates: 'nope' }), 400, /templates/);
      assert.equal((await member.inboxNotifications({ templates: TEST_KIND })).notifications.length, 0);
      assert.equal((await member.inboxNotifications({ templates: DELETED_KIND })).notifications.length, 2);

      await member.markAllInboxNotificationsAsRead();
      const after = await member.inboxNotifications();
      assert.equal(after.unread_count, 0);
      assert.ok(after.notifications.every((n) => n.read_at !== null));
    });

    it('pages the inbox 25 at a time, newest first, from starting_before', async () => {
      for (let i = 0; i < 26; i++) {
        test.clock.advance(1000);
        await templateDeleted(`page-${i}`);
      }
      await dispatch();
      const first = await member.inboxNotifications();
      assert.equal(first.notifications.length, 25);
      assert.equal(first.notifications[0]?.title, 'Template "page-25" deleted');
      const last = first.notifications.at(-1);
      assert.equal(last?.title, 'Template "page-1" deleted');
      const next = await member.inboxNotifications({ starting_before: last?.id ?? '' });
      assert.equal(next.notifications[0]?.title, 'Template "page-0" deleted');
      // ruby and python were queued at the same instant: their order is the ids'.
      assert.deepEqual(
        next.notifications
          .slice(1)
          .map((n) => n.title)
          .sort(),
        ['Template "python" deleted', 'Template "ruby" deleted'],
      );
    });

    it('watches the inbox: a new notification arrives on the WebSocket with the unread count', async () => {
      const received: GetInboxNotificationResponse[] = [];
      const stop = new AbortController();
      const watching = member.watchInboxNotifications((message) => received.push(message), stop.signal).catch(() => undefined);
      try {
        const unread = (await member.inboxNotifications()).unread_count;
        // The server follows the inbox once the socket is open, a moment after the client sees it open:
        // a notification sent before then is not pushed. Until one comes through, send another.
        let sentCount = 0;
        await eventually(
          async () => {
            if (received.length === 0) {
              sentCount += 1;
              await templateDeleted(`live-${sentCount}-${Date.now()}`);
              await dispatch();
            }
            assert.ok(received.length > 0, 'no notification on the socket yet');
          },
          10_000,
          250,
        );
        const [message] = received;
        assert.match(message?.notification.title ?? '', /Template "live-\d+-\d+" deleted/);
        assert.equal(message?.notification.user_id, memberId);
        assert.ok((message?.unread_count ?? 0) > unread);
        // The owner's notifications are not the member's.
        await owner.testNotification();
        await dispatch();
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.ok(received.every((m) => m.notification.user_id === memberId && m.notification.template_id === DELETED_KIND));
        assert.ok((await owner.inboxNotifications()).notifications.some((n) => n.user_id === ownerId && n.template_id === TEST_KIND));
      } finally {
        stop.abort();
        await watching;
      }
    });

    it('logs nothing above debug about notifications when no method but the inbox is configured', () => {
      const loud = log
        .lines()
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .filter((entry) => entry.level > 20 && /notif/i.test(JSON.stringify(entry)));
      assert.deepEqual(loud, []);
      assert.ok(
        log.lines().some((line) => line.includes('notification sent')),
        'the debug lines are there',
      );
    });
  });
}
