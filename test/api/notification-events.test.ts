import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTar } from '../../src/lib/archive/index.js';
import { NOTIFICATION_KINDS, type NotificationKindName } from '../../src/domain/notifications/catalogue.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { InboxNotification, Template, Workspace, WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { TestLicenseIssuer } from '../helpers/licenses.js';
import { Browser } from '../helpers/browser.js';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

for (const dialect of TEST_DIALECTS) {
  describe(`the events that queue notifications (${dialect})`, () => {
    let test: TestDaemon;
    let provider: TestOidcProvider;
    let owner: CoveClient;
    let alice: CoveClient;
    let templateAdmin: CoveClient;
    let userAdmin: CoveClient;
    /** A user administrator who turned account-created notifications off. */
    let quietAdmin: CoveClient;
    const ids: Record<string, string> = {};

    /** The caller's inbox messages of one kind, once `count` of them have arrived (or what there is after a while). */
    async function inbox(client: CoveClient, kind: NotificationKindName, count = 1): Promise<InboxNotification[]> {
      const templates = NOTIFICATION_KINDS[kind].id;
      const deadline = Date.now() + 5_000;
      for (;;) {
        const { notifications } = await client.inboxNotifications({ templates, read_status: 'all' });
        if (notifications.length >= count || Date.now() > deadline) return notifications;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    /**
     * How many messages of the kind were queued for the user, by any method: what says "none" for
     * events a request or task queues before it answers, without waiting for a delivery.
     */
    async function queued(userId: string, kind: NotificationKindName): Promise<number> {
      const row = await test.daemon.store.db
        .selectFrom('notification_messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('template_id', '=', NOTIFICATION_KINDS[kind].id)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }

    /** Exactly one message of the kind in the caller's inbox, which it returns. */
    async function one(client: CoveClient, kind: NotificationKindName): Promise<InboxNotification> {
      const messages = await inbox(client, kind);
      assert.equal(messages.length, 1, `one ${kind}, not ${messages.length}`);
      return messages[0] as InboxNotification;
    }

    async function settled(build: WorkspaceBuild): Promise<WorkspaceBuild> {
      await owner.followWorkspaceBuildLogs(build.id, () => undefined);
      return owner.workspaceBuild(build.id);
    }

    /** Runs an executor tick and waits for the build it queued. */
    async function autobuildTick(workspace: Workspace): Promise<WorkspaceBuild> {
      await test.daemon.tasks.autobuild.runNow();
      const [latest] = await owner.workspaceBuilds(workspace.id);
      assert.ok(latest);
      return settled(latest);
    }

    async function echoTemplate(name: string, echo: unknown, settings: Record<string, unknown> = {}): Promise<Template> {
      return (await createEchoTemplate(owner, name, echo, { settings, files: { 'name.txt': name } })).template;
    }

    before(async () => {
      const issuer = new TestLicenseIssuer();
      provider = await startOidcProvider();
      test = await startTestDaemon({
        database: dialect,
        flags: {
          provisionerDaemons: '1',
          sessionDurationMs: '100000h',
          licensePublicKeys: issuer.trustEntry,
          oidcIssuerUrl: provider.issuer,
          oidcClientId: provider.clientId,
          oidcClientSecret: provider.clientSecret,
        },
      });
      await provider.allowRedirect(`${test.url}/api/v2/users/oidc/callback`);
      provider.accounts.set('dave-sub', { email: 'dave@example.com', preferredUsername: 'dave', name: 'Dave' });
      owner = await createOwner(test);
      ids['owner'] = (await owner.user()).id;
      // Dormancy is advanced template scheduling: it acts only under a license.
      await owner.addLicense(await issuer.license({ now: test.clock.now(), features: { advanced_template_scheduling: 1 } }));
      alice = await createMember(test, 'alice');
      templateAdmin = await createMember(test, 'tadmin');
      userAdmin = await createMember(test, 'uadmin');
      quietAdmin = await createMember(test, 'quiet');
      for (const [name, client] of Object.entries({ alice, tadmin: templateAdmin, uadmin: userAdmin, quiet: quietAdmin })) {
        ids[name] = (await client.user()).id;
      }
      await owner.setSiteRoles('tadmin', ['template-admin']);
      await owner.setSiteRoles('uadmin', ['user-admin']);
      await owner.setSiteRoles('quiet', ['user-admin']);
      await quietAdmin.updateUserNotificationPreferences('me', {
        template_disabled_map: { [NOTIFICATION_KINDS.userAccountCreated.id]: true },
      });
    });
    after(async () => {
      await test.close();
      await provider.close();
    });

    it('warns before the autostop once per deadline, with a link that extends it, then says it stopped', async () => {
      const template = await echoTemplate('timed', {});
      const workspace = await alice.createWorkspace('me', { name: 'timed', template_id: template.id, ttl_ms: 2 * HOUR });
      const started = await settled(workspace.latest_build);
      assert.ok(started.deadline);
      await test.daemon.tasks.autostopWarning.runNow();
      assert.equal(await queued(ids['alice'] ?? '', 'workspaceAutostopWarning'), 0, 'two hours away: no warning yet');

      test.clock.advance(HOUR + 30 * MINUTE);
      await test.daemon.tasks.autostopWarning.runNow();
      const warned = await queued(ids['alice'] ?? '', 'workspaceAutostopWarning');
      assert.ok(warned > 0);
      await test.daemon.tasks.autostopWarning.runNow();
      assert.equal(await queued(ids['alice'] ?? '', 'workspaceAutostopWarning'), warned, 'a second run queues nothing more');
      const warning = await one(alice, 'workspaceAutostopWarning');
      assert.match(warning.title, /"timed" will stop at \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      assert.match(warning.content, /\(30 minutes from now\)/);
      assert.ok(warning.targets.includes(workspace.id));
      const extend = warning.actions.find((action) => action.url.includes('extend='));
      assert.equal(extend?.url, `${test.url}/@alice/timed?extend=1h`);
      assert.equal(extend?.label, 'Extend by 1 hour');

      test.clock.set(new Date(Date.parse(started.deadline) + MINUTE));
      const stop = await autobuildTick(workspace);
      assert.deepEqual([stop.transition, stop.reason, stop.status], ['stop', 'autostop', 'stopped']);
      const stopped = await one(alice, 'workspaceAutoStopped');
      assert.match(stopped.content, /timed was stopped automatically: it reached its scheduled stop time/);
      assert.equal(stopped.actions[0]?.url, `${test.url}/@alice/timed`);
      await test.daemon.tasks.autobuild.runNow();
      await test.daemon.tasks.autostopWarning.runNow();
      assert.equal((await inbox(alice, 'workspaceAutostopWarning')).length, 1, 'a stopped workspace is not warned again');
      assert.equal((await inbox(alice, 'workspaceAutoStopped')).length, 1);
    });

    it('tells the owner of a failed build, manual or automatic, with the job error', async () => {
      const broken = await echoTemplate('broken', { apply: { start: { error: 'no capacity left' } } });
      const manual = await alice.createWorkspace('me', { name: 'broken', template_id: broken.id });
      assert.equal((await settled(manual.latest_build)).status, 'failed');
      const failed = await one(alice, 'workspaceManualBuildFailed');
      assert.match(failed.title, /"broken" start failed/);
      assert.match(failed.content, /Build 1 \(start\) of workspace broken, started by alice, failed: no capacity left/);

      const sticky = await echoTemplate('sticky', { apply: { stop: { error: 'volume busy' } } });
      const workspace = await alice.createWorkspace('me', { name: 'sticky', template_id: sticky.id, ttl_ms: HOUR });
      const started = await settled(workspace.latest_build);
      test.clock.set(new Date(Date.parse(started.deadline ?? '') + MINUTE));
      const stop = await autobuildTick(workspace);
      assert.deepEqual([stop.reason, stop.status], ['autostop', 'failed']);
      const automatic = await one(alice, 'workspaceAutobuildFailed');
      assert.match(automatic.content, /automatic stop \(autostop\) of your workspace sticky, build 2, failed: volume busy/);
      assert.equal((await inbox(alice, 'workspaceManualBuildFailed')).length, 1, 'the automatic failure is not a manual one');
      assert.equal(await queued(ids['owner'] ?? '', 'workspaceAutobuildFailed'), 0, 'only the owner of the workspace is told');
    });

    it('tells of dormancy, the deletion date, and the automatic deletion', async () => {
      const template = await echoTemplate('idle', {}, { time_til_dormant_ms: 2 * HOUR, time_til_dormant_autodelete_ms: HOUR });
      const workspace = await alice.createWorkspace('me', { name: 'idle', template_id: template.id });
      await settled(workspace.latest_build);
      test.clock.advance(2 * HOUR + 2 * MINUTE);
      const stop = await autobuildTick(workspace);
      assert.deepEqual([stop.transition, stop.reason], ['stop', 'dormancy']);
      await test.daemon.tasks.autobuild.runNow();
      const dormant = await one(alice, 'workspaceDormant');
      assert.match(dormant.content, /idle was marked dormant: it was not used for 2 hours/);
      const marked = await one(alice, 'workspaceMarkedForDeletion');
      const deletingAt = (await alice.workspace(workspace.id)).deleting_at ?? '';
      assert.ok(marked.content.includes(`${deletingAt.slice(0, 16).replace('T', ' ')} UTC`), marked.content);
      const stopped = (await inbox(alice, 'workspaceAutoStopped', 2)).filter((m) => m.targets.includes(workspace.id));
      assert.equal(stopped.length, 1);
      assert.match(stopped[0]?.content ?? '', /not used for a while and is now dormant/);

      test.clock.advance(HOUR + 2 * MINUTE);
      const deletion = await autobuildTick(workspace);
      assert.deepEqual([deletion.transition, deletion.status], ['delete', 'deleted']);
      const deleted = await one(alice, 'workspaceDeleted');
      assert.match(deleted.content, /idle was deleted: it stayed dormant past its deletion date/);
    });

    it('tells the owner when someone else marks their workspace dormant, not when they do', async () => {
      const template = await echoTemplate('parked', {});
      const workspace = await alice.createWorkspace('me', { name: 'parked', template_id: template.id });
      await settled(workspace.latest_build);
      await owner.setWorkspaceDormant(workspace.id, true);
      const told = (await inbox(alice, 'workspaceDormant', 2)).filter((message) => message.targets.includes(workspace.id));
      assert.equal(told.length, 1);
      assert.match(told[0]?.content ?? '', /parked was marked dormant: owner marked it dormant/);
      const before = await queued(ids['alice'] ?? '', 'workspaceDormant');
      await alice.setWorkspaceDormant(workspace.id, false);
      test.clock.advance(MINUTE);
      await alice.setWorkspaceDormant(workspace.id, true);
      assert.equal(await queued(ids['alice'] ?? '', 'workspaceDormant'), before, 'the owner knows what they did');
    });

    it('tells owners of workspaces on older versions of a template once, and of its deprecation', async () => {
      const { template } = await createEchoTemplate(owner, 'evolving', {}, { files: { 'v.txt': '1' } });
      const workspace = await alice.createWorkspace('me', { name: 'evolving', template_id: template.id });
      await settled(workspace.latest_build);
      const { id: fileId } = await owner.uploadFile(await createTar({ 'echo.json': '{}', 'v.txt': '2' }));
      const next = await owner.createTemplateVersion('default', { file_id: fileId, template_id: template.id, name: 'second' });
      await owner.followTemplateVersionLogs(next.id, () => undefined);
      await owner.promoteTemplateVersion(template.id, next.id);
      await owner.promoteTemplateVersion(template.id, next.id);
      const outdated = await one(alice, 'workspaceOutOfDate');
      assert.match(outdated.content, /Template evolving has a new active version, second\. Your workspace evolving runs an older one/);
      assert.equal(await queued(ids['owner'] ?? '', 'workspaceOutOfDate'), 0, 'the owner has no workspace on it');

      await owner.updateTemplate(template.id, { deprecation_message: 'use evolving-2' });
      await owner.updateTemplate(template.id, { deprecation_message: 'use evolving-2' });
      const deprecated = await one(alice, 'templateDeprecated');
      assert.match(deprecated.content, /Template evolving, which your workspaces use, was deprecated: use evolving-2/);
    });

    it('tells template administrators of a deleted template, except whoever deleted it', async () => {
      const doomed = await echoTemplate('doomed', {});
      await owner.deleteTemplate(doomed.id);
      const deleted = await one(templateAdmin, 'templateDeleted');
      assert.match(deleted.content, /Template doomed was deleted by owner/);
      assert.equal(await queued(ids['owner'] ?? '', 'templateDeleted'), 0, 'whoever deleted it is not told');
      assert.equal(await queued(ids['alice'] ?? '', 'templateDeleted'), 0, 'a member is not told');
    });

    it('tells user administrators of accounts created, suspended and activated, and the user of their own', async () => {
      const carol = await owner.createUser({
        email: 'carol@example.com',
        username: 'carol',
        password: STRONG_PASSWORD,
        user_status: 'active',
        organization_ids: [test.daemon.identity.defaultOrganization.id],
      });
      const created = await one(userAdmin, 'userAccountCreated');
      assert.match(created.content, /User account carol was created by owner/);
      assert.deepEqual(created.targets, [carol.id]);
      assert.equal((await inbox(quietAdmin, 'userAccountCreated', 0)).length, 0, 'turned off: none');
      assert.equal(await queued(ids['alice'] ?? '', 'userAccountCreated'), 0, 'a member is not told');

      await userAdmin.suspendUser('carol');
      const suspended = await one(quietAdmin, 'userAccountSuspended');
      assert.match(suspended.content, /User account carol was suspended by uadmin/);
      test.clock.advance(MINUTE);
      await userAdmin.activateUser('carol');
      await one(owner, 'userAccountActivated');
      const { session_token } = await test.anonymous.login('carol@example.com', STRONG_PASSWORD);
      const asCarol = test.anonymous.withToken(session_token);
      assert.match((await one(asCarol, 'yourAccountSuspended')).content, /Your account carol was suspended by uadmin/);
      assert.match((await one(asCarol, 'yourAccountActivated')).content, /Your account carol was activated by uadmin/);
    });

    it('tells user administrators of an account made at an OIDC sign-in', async () => {
      const browser = new Browser();
      const start = await browser.request(`${test.url}/api/v2/users/oidc/callback`);
      const back = await signInAtProvider(browser, start.location ?? '', 'dave-sub');
      const final = await browser.request(back.location ?? '');
      assert.equal(final.status, 307, final.body);
      const created = (await inbox(userAdmin, 'userAccountCreated', 2)).filter((message) => message.content.includes('dave'));
      assert.equal(created.length, 1);
      assert.match(created[0]?.content ?? '', /User account dave was created by oidc/);
    });

    it('sends template administrators the failed builds of the week once, per template with failures', async () => {
      await test.daemon.tasks.failedBuildsReport.runNow();
      const sent = await queued(ids['tadmin'] ?? '', 'workspaceBuildsFailedReport');
      await test.daemon.tasks.failedBuildsReport.runNow();
      assert.equal(await queued(ids['tadmin'] ?? '', 'workspaceBuildsFailedReport'), sent, 'a second run sends nothing more');
      const reports = await inbox(templateAdmin, 'workspaceBuildsFailedReport', 2);
      assert.deepEqual(reports.map((report) => report.title).sort(), [
        'Workspace builds failed for template "broken"',
        'Workspace builds failed for template "sticky"',
      ]);
      const broken = reports.find((report) => report.title.includes('"broken"'));
      assert.match(broken?.content ?? '', /1 of 1 builds of template broken failed/);
      assert.match(broken?.content ?? '', /- alice\/broken build 1 \(start\): no capacity left/);
      assert.equal(broken?.actions[0]?.url, `${test.url}/templates/broken`);
      assert.equal((await inbox(owner, 'workspaceBuildsFailedReport', 2)).length, 2, 'owners are told too');
      assert.equal(await queued(ids['alice'] ?? '', 'workspaceBuildsFailedReport'), 0, 'a member is not sent the report');

      // A week later there is nothing new to report.
      test.clock.advance(7 * 24 * HOUR + MINUTE);
      await test.daemon.tasks.failedBuildsReport.runNow();
      assert.equal(await queued(ids['tadmin'] ?? '', 'workspaceBuildsFailedReport'), sent);
    });
  });
}
