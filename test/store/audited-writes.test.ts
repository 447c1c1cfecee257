import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { CoveClient } from '../../src/sdk/client.js';
import type { AuditLog, Template, WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { isUuid } from '../../src/lib/random.js';
import { ApiError } from '../../src/sdk/api-error.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { TestLicenseIssuer } from '../helpers/licenses.js';
import { createMember, createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const HOUR = 3_600_000;
/** How the API names the organization of an entry outside any, as the reference does. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';

/** An audit entry as the API answers it, with the fields the assertions look at. */
interface Entry {
  readonly user_id: string | null;
  readonly organization_id: string;
  readonly resource_type: string;
  readonly resource_id: string;
  readonly resource_target: string;
  readonly action: string;
  readonly diff: AuditLog['diff'];
  readonly additional_fields: Record<string, string>;
}

for (const dialect of TEST_DIALECTS) {
  describe(`store families write their audit entries with their changes (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let ownerId: string;
    let orgId: string;
    let template: Template;
    const issuer = new TestLicenseIssuer();

    /**
     * The entries of one resource (by id, or by name for what has no id), read through the API as
     * an owner reads them, oldest first.
     */
    async function entries(resource: string, action?: string): Promise<Entry[]> {
      const q = `${isUuid(resource) ? 'resource_id' : 'resource_target'}:${resource}${action ? ` action:${action}` : ''}`;
      const { audit_logs: logs } = await owner.auditLogs({ q, limit: 100 });
      return logs.reverse().map((log) => ({
        user_id: log.user?.id ?? null,
        organization_id: log.organization_id,
        resource_type: log.resource_type,
        resource_id: log.resource_id,
        resource_target: log.resource_target,
        action: log.action,
        diff: log.diff,
        additional_fields: log.additional_fields,
      }));
    }

    /** The one entry of a resource with that action. */
    async function only(resourceId: string, action: string): Promise<Entry> {
      const found = await entries(resourceId, action);
      assert.equal(found.length, 1, `one ${action} entry of ${resourceId}, found ${JSON.stringify(found)}`);
      return found[0] as Entry;
    }

    async function settled(build: WorkspaceBuild): Promise<WorkspaceBuild> {
      await owner.followWorkspaceBuildLogs(build.id, () => undefined);
      return owner.workspaceBuild(build.id);
    }

    before(async () => {
      test = await startTestDaemon({
        database: dialect,
        flags: {
          provisionerDaemons: '1',
          sessionDurationMs: '100000h',
          licensePublicKeys: issuer.trustEntry,
          allowWorkspaceRenames: 'true',
        },
      });
      owner = await createOwner(test);
      ownerId = (await owner.user()).id;
      orgId = test.daemon.identity.defaultOrganization.id;
      ({ template } = await createEchoTemplate(owner, 'audited', {}));
    });
    after(async () => test.close());

    it('templates and their versions: created, renamed, shared, each with its organization and diff', async () => {
      const created = await only(template.id, 'create');
      assert.deepEqual([created.resource_type, created.resource_target, created.organization_id], ['template', 'audited', orgId]);
      assert.equal(created.user_id, ownerId);
      assert.equal(created.diff['name']?.new, 'audited');

      const version = await only(template.active_version_id, 'create');
      assert.deepEqual([version.resource_type, version.organization_id], ['template_version', orgId]);
      assert.equal(version.diff['variables'], undefined, 'what the import found stays out');
      await owner.updateTemplateVersion(template.active_version_id, { name: 'renamed-version' });
      const renamed = await only(template.active_version_id, 'write');
      assert.deepEqual(renamed.diff['name'], { old: version.resource_target, new: 'renamed-version', secret: false });

      const member = await createMember(test, 'acl-reader');
      const memberId = (await member.user()).id;
      await owner.updateTemplateAcl(template.id, { user_perms: { [memberId]: 'use' } });
      const shared = (await entries(template.id, 'write')).find((entry) => entry.diff['user_acl']);
      assert.ok(shared, 'an ACL change is a write of the template');
      assert.deepEqual(shared.diff['user_acl'], { old: {}, new: { [memberId]: ['read', 'use'] }, secret: false });
    });

    it('users: created, suspended, given roles, password changed (redacted), key regenerated, deleted', async () => {
      const user = await owner.createUser({
        email: 'audited@example.com',
        username: 'audited-user',
        password: STRONG_PASSWORD,
        organization_ids: [orgId],
      });
      const created = await only(user.id, 'create');
      assert.deepEqual(
        [created.resource_type, created.resource_target, created.organization_id],
        ['user', 'audited-user', NO_ORGANIZATION],
      );
      assert.deepEqual(created.diff['hashed_password'], { old: '', new: '', secret: true });

      const self = test.anonymous.withToken((await owner.createToken({ token_name: 'x' }, user.id)).key);
      const before = await self.gitSshKey();
      const after = await self.regenerateGitSshKey();
      const regenerated = (await entries(user.id)).find((entry) => entry.resource_type === 'git_ssh_key');
      assert.ok(regenerated, 'a git_ssh_key entry');
      assert.equal(regenerated.user_id, user.id);
      assert.deepEqual(regenerated.diff['private_key'], { old: '', new: '', secret: true });
      assert.deepEqual(regenerated.diff['public_key'], { old: before.public_key, new: after.public_key, secret: false });

      await owner.suspendUser(user.id);
      await owner.setSiteRoles(user.id, ['template-admin']);
      await owner.changePassword(user.id, { password: `${STRONG_PASSWORD}-new` });
      const writes = await entries(user.id, 'write');
      assert.ok(
        writes.some((entry) => entry.diff['status']?.new === 'suspended'),
        `a suspension's entry, among ${JSON.stringify(writes.map((entry) => entry.diff))}`,
      );
      assert.ok(
        writes.some((entry) => String(entry.diff['rbac_roles']?.new).includes('template-admin')),
        `a role change's entry, among ${JSON.stringify(writes.map((entry) => entry.diff))}`,
      );
      const password = writes.find((entry) => entry.diff['hashed_password']);
      assert.deepEqual(password?.diff['hashed_password'], { old: '', new: '', secret: true });
      const hash = (
        await test.daemon.store.db.selectFrom('users').select('hashed_password').where('id', '=', user.id).executeTakeFirstOrThrow()
      ).hashed_password;
      const everything = JSON.stringify(await entries(user.id));
      assert.ok(!everything.includes(hash), 'no password hash in any entry');

      await owner.deleteUser(user.id);
      assert.equal((await only(user.id, 'delete')).resource_target, 'audited-user');
    });

    it('named tokens: created and deleted under their names, their secrets nowhere', async () => {
      const { key } = await owner.createToken({ token_name: 'ci-token' });
      const token = await owner.tokenByName('ci-token');
      // A token's id is no uuid: its entries are found by its name.
      const created = await only('ci-token', 'create');
      assert.deepEqual([created.resource_type, created.resource_id], ['api_key', token.id]);
      const secret = key.split('-')[1] ?? key;
      assert.ok(!JSON.stringify(created).includes(secret));
      assert.equal(created.diff['hashed_secret'], undefined);
      await owner.deleteApiKey(token.id);
      assert.equal((await only('ci-token', 'delete')).resource_id, token.id);
    });

    it('organizations, members, custom roles and groups; a duplicate name leaves no entry', async () => {
      const org = await owner.createOrganization({ name: 'audited-org' });
      assert.equal((await only(org.id, 'create')).organization_id, org.id);
      await owner.updateOrganization(org.id, { display_name: 'Audited' });
      assert.deepEqual((await only(org.id, 'write')).diff['display_name']?.new, 'Audited');

      const member = await createMember(test, 'org-member');
      const memberId = (await member.user()).id;
      await owner.addMember(org.id, memberId);
      const added = await only(memberId, 'create');
      assert.deepEqual([added.resource_type, added.resource_target, added.organization_id], ['organization_member', 'org-member', org.id]);
      await owner.setMemberRoles(org.id, memberId, ['organization-admin']);
      assert.deepEqual((await only(memberId, 'write')).diff['roles'], { old: '[]', new: '["organization-admin"]', secret: false });
      await owner.removeMember(org.id, memberId);
      assert.equal((await only(memberId, 'delete')).organization_id, org.id);

      await owner.createCustomRole(org.id, { name: 'auditor-ish', display_name: 'Auditor-ish' });
      await owner.updateCustomRole(org.id, { name: 'auditor-ish', display_name: 'Renamed' });
      await owner.deleteCustomRole(org.id, 'auditor-ish');
      const roles = await entries('auditor-ish');
      assert.deepEqual(roles.map((entry) => [entry.resource_type, entry.action, entry.organization_id]).sort(), [
        ['custom_role', 'create', org.id],
        ['custom_role', 'delete', org.id],
        ['custom_role', 'write', org.id],
      ]);

      const group = await owner.createGroup('default', { name: 'audited-group' });
      assert.equal((await only(group.id, 'create')).organization_id, orgId);
      await owner.patchGroup(group.id, { add_users: [memberId], display_name: 'Audited Group' });
      const patched = await only(group.id, 'write');
      assert.deepEqual(patched.diff['members'], { old: [], new: [memberId], secret: false });
      assert.equal(patched.diff['display_name']?.new, 'Audited Group');

      await expectApiError(owner.createGroup('default', { name: 'audited-group' }), 409);
      // The API records the refused request itself (its status, no resource); the change wrote nothing.
      const creates = (await entries('audited-group', 'create')).filter((entry) => entry.resource_type === 'group');
      assert.deepEqual(
        creates.map((entry) => entry.resource_id),
        [group.id],
        'a refused duplicate writes no entry of a change',
      );

      await owner.deleteGroup(group.id);
      assert.deepEqual((await only(group.id, 'delete')).diff['members'], { old: [memberId], secret: false });
      await owner.deleteOrganization(org.id);
      assert.equal((await only(org.id, 'delete')).resource_target, 'audited-org');
    });

    it('licenses and health settings', async () => {
      const license = await owner.addLicense(await issuer.license({ now: test.clock.now(), features: {} }));
      const uuid = license.uuid;
      assert.equal((await only(uuid, 'create')).resource_type, 'license');
      assert.ok(!JSON.stringify(await entries(uuid)).includes('eyJ'), 'the signed token stays out');
      await owner.deleteLicense(license.id);
      assert.equal((await only(uuid, 'delete')).resource_target, uuid);

      await owner.updateHealthSettings({ dismissed_healthchecks: ['DERP'] });
      const health = await only('00000000-0000-0000-0000-000000000000', 'write');
      assert.deepEqual(health.diff['dismissed_healthchecks'], { old: [], new: ['DERP'], secret: false });
    });

    it("workspaces and their builds: the caller's and the lifecycle executor's, with why", async () => {
      const workspace = await owner.createWorkspace('me', { name: 'audited-ws', template_id: template.id, ttl_ms: HOUR });
      const first = await settled(workspace.latest_build);
      const created = await only(workspace.id, 'create');
      assert.deepEqual([created.resource_type, created.resource_target, created.organization_id], ['workspace', 'audited-ws', orgId]);

      await owner.renameWorkspace(workspace.id, 'audited-renamed');
      assert.deepEqual((await only(workspace.id, 'write')).diff['name'], { old: 'audited-ws', new: 'audited-renamed', secret: false });

      // An extension is a write of the running build's deadline.
      assert.ok(first.deadline);
      await owner.extendWorkspace(workspace.id, new Date(Date.parse(first.deadline) + HOUR).toISOString());
      const extended = await owner.workspaceBuild(first.id);
      const extension = await only(first.id, 'write');
      assert.equal(extension.resource_type, 'workspace_build');
      assert.deepEqual(extension.diff['deadline'], { old: first.deadline, new: extended.deadline, secret: false });
      assert.notEqual(extended.deadline, first.deadline);

      const stop = await owner.createWorkspaceBuild(workspace.id, { transition: 'stop', reason: 'cli' });
      const stopped = await settled(stop);
      const entry = await only(stop.id, 'stop');
      assert.deepEqual([entry.resource_type, entry.resource_target, entry.user_id], ['workspace_build', 'audited-renamed', ownerId]);
      assert.deepEqual(entry.additional_fields, {
        build_number: String(stopped.build_number),
        build_reason: stopped.reason,
        workspace_name: 'audited-renamed',
        workspace_owner: 'owner',
        workspace_id: workspace.id,
      });

      const start = await settled(await owner.createWorkspaceBuild(workspace.id, { transition: 'start' }));
      assert.ok(start.deadline && first.deadline);
      test.clock.set(new Date(Date.parse(start.deadline) + 60_000));
      await test.daemon.tasks.autobuild.runNow();
      const [latest] = await owner.workspaceBuilds(workspace.id);
      assert.ok(latest && latest.id !== start.id, 'the executor stopped the workspace');
      const automatic = await only(latest.id, 'stop');
      assert.equal(automatic.user_id, null, 'system work has no user');
      assert.equal(automatic.additional_fields['build_reason'], 'autostop');
      await settled(latest);
    });

    it('the lifecycle executor marking a workspace dormant writes its entry, with no user and the reason', async () => {
      await owner.addLicense(await issuer.license({ now: test.clock.now(), features: { advanced_template_scheduling: 1 } }));
      const { template: idle } = await createEchoTemplate(owner, 'audited-idle', {}, { settings: { time_til_dormant_ms: HOUR } });
      const workspace = await owner.createWorkspace('me', { name: 'audited-idle', template_id: idle.id });
      await settled(workspace.latest_build);
      test.clock.advance(2 * HOUR);
      await test.daemon.tasks.autobuild.runNow();
      const dormant = (await entries(workspace.id, 'write')).find((entry) => entry.diff['dormant_at']);
      assert.ok(dormant, 'a write of the workspace that makes it dormant');
      assert.equal(dormant.user_id, null);
      assert.equal(dormant.additional_fields['reason'], 'dormancy');
      const [stop] = await owner.workspaceBuilds(workspace.id);
      assert.ok(stop);
      assert.equal((await only(stop.id, 'stop')).additional_fields['build_reason'], 'dormancy');
      await settled(stop);
    });

    it('a change whose entry cannot be written is not kept: one transaction', async () => {
      const workspace = await owner.createWorkspace('me', { name: 'kept-ws', template_id: template.id });
      await settled(workspace.latest_build);
      const member = await createMember(test, 'kept-user');
      const memberId = (await member.user()).id;
      const db = test.daemon.store.db;
      await sql`ALTER TABLE audit_logs RENAME TO audit_logs_away`.execute(db);
      try {
        const calls = [
          () => owner.updateTemplate(template.id, { display_name: 'Never Kept' }),
          () => owner.renameWorkspace(workspace.id, 'never-kept'),
          () => owner.suspendUser(memberId),
        ];
        for (const call of calls) await assert.rejects(call(), (error) => error instanceof ApiError && error.status >= 500);
      } finally {
        await sql`ALTER TABLE audit_logs_away RENAME TO audit_logs`.execute(db);
      }
      assert.equal((await owner.template(template.id)).display_name, template.display_name);
      assert.equal((await owner.workspace(workspace.id)).name, 'kept-ws');
      assert.equal((await owner.user(memberId)).status, 'active');
    });

    // Last: it moves the clock past the dormancy threshold for everyone.
    it('marking idle users dormant writes an entry for each, with no user and the reason', async () => {
      const idle = await createMember(test, 'idle-user');
      const idleId = (await idle.user()).id;
      test.clock.advance(100 * 24 * HOUR);
      await test.daemon.tasks.userDormancy.runNow();
      assert.equal((await owner.user(idleId)).status, 'dormant');
      const [entry, ...more] = (await entries(idleId, 'write')).filter((found) => found.diff['status']);
      assert.equal(more.length, 0);
      assert.ok(entry, 'a write of the user that makes them dormant');
      assert.deepEqual(entry.diff['status'], { old: 'active', new: 'dormant', secret: false });
      assert.equal(entry.user_id, null);
      assert.deepEqual(entry.additional_fields, { automatic: 'true', reason: 'dormancy' });
    });
  });
}
