import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUDITED_ROUTES, UNAUDITED_ROUTES } from '../../src/api/plugins/audit-routes.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { AuditLog } from '../../src/sdk/wire/index.js';
import { referenceMismatches } from '../helpers/reference-shapes.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { expectApiError, rawRequest } from '../helpers/expect-api-error.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const USER_AGENT = 'audit-test/1.0';

function passcodeIn(mail: string): string {
  const match = /Passcode: ([0-9a-f-]{36})/.exec(mail);
  assert.ok(match?.[1], `no passcode in the mail:\n${mail}`);
  return match[1];
}

for (const dialect of TEST_DIALECTS) {
  describe(`the audit log (${dialect})`, () => {
    let test: TestDaemon;
    let smtp: SmtpReceiver;
    let owner: CoveClient;
    let templateAdmin: CoveClient;
    let member: CoveClient;
    let auditor: CoveClient;
    let templateAdminId: string;
    let memberId: string;
    let kept: string;
    let deleteRequestId: string;
    /** Every entry, newest first, as the owner reads them. */
    const all = async (q = ''): Promise<AuditLog[]> => (await owner.auditLogs({ q, limit: 1000 })).audit_logs;

    before(async () => {
      smtp = await SmtpReceiver.start();
      test = await startTestDaemon({
        database: dialect,
        flags: { provisionerDaemons: '1', rateLimitDisableAll: 'true', emailSmtpHost: smtp.hostPort, emailSmtpFrom: 'cove@example.com' },
      });
      owner = await createOwner(test);
      templateAdmin = await createMember(test, 'tadmin');
      member = await createMember(test, 'member');
      auditor = await createMember(test, 'auditor');
      templateAdminId = (await templateAdmin.user()).id;
      memberId = (await member.user()).id;
      await owner.setSiteRoles('tadmin', ['template-admin']);
      await owner.setSiteRoles('auditor', ['auditor']);
      kept = (await createEchoTemplate(templateAdmin, 'kept', {})).template.id;
      const doomed = (await createEchoTemplate(templateAdmin, 'doomed', {})).template;
      const answer = await rawRequest(test.url, 'DELETE', `/templates/${doomed.id}`, {
        headers: { 'service-session-token': templateAdmin.token ?? '', 'user-agent': USER_AGENT },
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      deleteRequestId = answer.headers.get('x-request-id') ?? '';
      assert.ok(deleteRequestId);
    });
    after(async () => {
      await test.close();
      await smtp.close();
    });

    it('records who deleted a template, from where, with the request id of the answer', async () => {
      const { audit_logs: found, count } = await owner.auditLogs({ q: 'resource_type:template action:delete' });
      assert.equal(count, 1);
      const entry = found[0];
      assert.ok(entry);
      assert.equal(entry.user?.username, 'tadmin');
      assert.equal(entry.user?.id, templateAdminId);
      assert.equal(entry.resource_target, 'doomed');
      assert.equal(entry.status_code, 200);
      assert.equal(entry.ip, '127.0.0.1');
      assert.equal(entry.user_agent, USER_AGENT);
      assert.equal(entry.request_id, deleteRequestId);
      assert.equal(entry.description, '{user} deleted template {target}');
      assert.equal(entry.is_deleted, true);
      assert.equal(entry.resource_link, '');
      assert.equal(entry.organization?.name, 'cove');
      assert.deepEqual(referenceMismatches(entry, 'AuditLog'), []);
    });

    it('links to a resource that still exists, and answers in the reference shapes', async () => {
      const [created] = await all(`resource_type:template action:create resource_id:${kept}`);
      assert.ok(created);
      assert.equal(created.is_deleted, false);
      assert.equal(created.resource_link, '/templates/cove/kept');
      assert.equal(created.status_code, 200);
      const page = await owner.auditLogs({ limit: 5 });
      assert.deepEqual(referenceMismatches(page, 'AuditLogResponse'), []);
      for (const entry of page.audit_logs) assert.deepEqual(referenceMismatches(entry, 'AuditLog'), [], JSON.stringify(entry));
    });

    it('records a refused delete with 403 and no diff', async () => {
      await expectApiError(member.deleteTemplate(kept), 403);
      const entry = await eventually(async () => {
        const [found] = await all(`resource_type:template action:delete username:member`);
        assert.ok(found);
        return found;
      });
      assert.equal(entry.status_code, 403);
      assert.equal(entry.resource_id, kept);
      assert.equal(entry.user?.id, memberId);
      assert.deepEqual(entry.diff, {});
      assert.equal(entry.description, '{user} unsuccessfully attempted to delete template {target}');
      const [template] = await all(`resource_type:template action:delete username:tadmin`);
      assert.ok(template);
    });

    it('filters by each key, counts, and pages newest first', async () => {
      const everything = await owner.auditLogs({ limit: 1000 });
      assert.equal(everything.count, everything.audit_logs.length);
      assert.ok(everything.count >= 4);
      const times = everything.audit_logs.map((entry) => `${entry.time} ${entry.id}`);
      assert.deepEqual(times, [...times].sort().reverse());

      const byUser = await owner.auditLogs({ q: 'username:tadmin' });
      assert.ok(byUser.count > 0);
      assert.ok(byUser.audit_logs.every((entry) => entry.user?.username === 'tadmin'));
      assert.equal((await owner.auditLogs({ q: 'tadmin' })).count, byUser.count, 'a bare word is a username');
      assert.equal((await owner.auditLogs({ q: 'email:TADMIN@example.com' })).count, byUser.count);
      assert.equal((await owner.auditLogs({ q: `username:me` })).count, (await owner.auditLogs({ q: 'username:owner' })).count);
      const actions = await owner.auditLogs({ q: 'action:create' });
      assert.ok(actions.audit_logs.length > 0 && actions.audit_logs.every((entry) => entry.action === 'create'));
      const byId = await owner.auditLogs({ q: `resource_id:${kept}` });
      assert.ok(byId.audit_logs.length > 0 && byId.audit_logs.every((entry) => entry.resource_id === kept));
      assert.equal((await owner.auditLogs({ q: `request_id:${deleteRequestId.toLowerCase()}` })).count, 1);
      // The refused delete names no organization: nothing in its path did.
      assert.equal((await owner.auditLogs({ q: 'organization:cove resource_type:template action:delete' })).count, 1);
      assert.equal((await owner.auditLogs({ q: 'organization:nowhere' })).count, 0);
      assert.equal((await owner.auditLogs({ q: 'build_reason:autostart' })).count, 0);
      // The daemon's clock stands at 2026-01-05; date_to takes in the whole day.
      assert.equal((await owner.auditLogs({ q: 'date_from:2026-01-05 date_to:2026-01-05' })).count, everything.count);
      assert.equal((await owner.auditLogs({ q: 'date_to:2026-01-04' })).count, 0);
      assert.equal((await owner.auditLogs({ q: 'date_from:2026-01-06' })).count, 0);

      const first = await owner.auditLogs({ limit: 2, offset: 0 });
      const second = await owner.auditLogs({ limit: 2, offset: 2 });
      assert.equal(first.count, everything.count);
      assert.equal(second.count, everything.count);
      assert.deepEqual(
        [...first.audit_logs, ...second.audit_logs].map((entry) => entry.id),
        everything.audit_logs.slice(0, 4).map((entry) => entry.id),
      );
    });

    it('refuses a bad search with the validations naming the field', async () => {
      const unknown = await expectApiError(owner.auditLogs({ q: 'colour:blue' }), 400);
      assert.deepEqual(
        unknown.body.validations?.map((v) => v.field),
        ['colour'],
      );
      const bad = await expectApiError(
        owner.auditLogs({ q: 'resource_type:spaceship action:fly date_from:2026-13-01 resource_id:x' }),
        400,
      );
      assert.deepEqual(bad.body.validations?.map((v) => v.field).sort(), ['action', 'date_from', 'resource_id', 'resource_type']);
    });

    it('is read by owners and auditors; a member is refused with 403', async () => {
      assert.equal((await auditor.auditLogs()).count, (await owner.auditLogs()).count);
      await expectApiError(member.auditLogs(), 403);
      await expectApiError(test.anonymous.auditLogs(), 401);
    });

    it("shows an organization's auditor the entries of their organization only", async () => {
      const other = await owner.createOrganization({ name: 'other' });
      const orgAuditor = await createMember(test, 'orgaud');
      await owner.addMember(other.id, 'orgaud');
      await owner.setMemberRoles(other.id, 'orgaud', ['organization-auditor']);
      // A refused create in the other organization: the hook records it there.
      await expectApiError(member.createTemplate(other.id, { name: 'nope', template_version_id: NIL_UUID }), 404);
      const seen = await eventually(async () => {
        const page = await orgAuditor.auditLogs();
        assert.ok(page.count > 0);
        return page;
      });
      assert.ok(seen.audit_logs.every((entry) => entry.organization_id === other.id));
      assert.ok(seen.audit_logs.some((entry) => entry.resource_type === 'template' && entry.user?.username === 'member'));
    });

    it('records sign-in, failed sign-in, sign-out and the first user', async () => {
      const [registered] = await all('action:register');
      assert.equal(registered?.user?.username, 'owner');
      assert.equal(registered?.resource_type, 'user');
      const logins = await all('action:login username:member');
      assert.ok(logins.length >= 1);
      assert.equal(logins[0]?.resource_type, 'api_key');
      assert.equal(logins[0]?.status_code, 201);
      assert.equal(logins[0]?.description, '{user} logged in');

      // Newest first goes by the daemon's clock, which stands still unless moved.
      test.clock.advance(1000);
      await expectApiError(test.anonymous.login('member@example.com', 'not-the-password'), 401);
      const [failed] = await all('action:login username:member');
      assert.equal(failed?.status_code, 401);
      assert.equal(failed?.user?.id, memberId);
      test.clock.advance(1000);
      await expectApiError(test.anonymous.login('nobody@example.com', 'not-the-password'), 401);
      const [unknown] = await all('action:login');
      assert.equal(unknown?.status_code, 401);
      assert.equal(unknown?.user, null);

      test.clock.advance(1000);
      const { session_token } = await test.anonymous.login('member@example.com', STRONG_PASSWORD);
      await test.anonymous.withToken(session_token).logout();
      const [logout] = await all('action:logout');
      assert.equal(logout?.user?.id, memberId);
      assert.equal(logout?.resource_type, 'api_key');
      assert.equal(logout?.description, '{user} logged out');
    });

    it('keeps a password change as a secret field with empty values', async () => {
      test.clock.advance(1000);
      await test.anonymous.requestOneTimePasscode('member@example.com');
      const [requested] = await all('action:request_password_reset');
      assert.equal(requested?.user?.id, memberId);
      assert.equal(requested?.description, 'password reset requested for {target}');
      // The passcode's mail, among the notifications the deployment mails too.
      const mail = await eventually(() => {
        const found = smtp.messages.find((message) => message.data.includes('Passcode:'));
        assert.ok(found, 'no passcode mail yet');
        return found;
      });
      const passcode = passcodeIn(mail.data);
      await test.anonymous.changePasswordWithPasscode({
        email: 'member@example.com',
        one_time_passcode: passcode,
        password: 'A-Brand-New-Passphrase-4',
      });
      const [changed] = await all(`resource_type:user action:write resource_id:${memberId}`);
      assert.ok(changed);
      assert.deepEqual(changed.diff['hashed_password'], { old: '', new: '', secret: true });
      assert.ok(Object.values(changed.diff).every((field) => !field.secret || (field.old === '' && field.new === '')));
    });

    it('has a line in the audited routes or the exclusions for every state-changing route', () => {
      const decided = new Set([...Object.keys(AUDITED_ROUTES), ...Object.keys(UNAUDITED_ROUTES)]);
      const served = test.daemon.app.routeList
        .filter((route) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method) && route.url.startsWith('/api/v2/'))
        .map((route) => `${route.method} ${route.url.slice('/api/v2'.length)}`);
      const undecided = served.filter((key) => !decided.has(key));
      assert.deepEqual(undecided, [], `state-changing routes the audit log has not decided on:\n${undecided.join('\n')}`);
      const stale = [...decided].filter((key) => !served.includes(key));
      assert.deepEqual(stale, [], `lines for routes that are not served:\n${stale.join('\n')}`);
    });
  });
}
