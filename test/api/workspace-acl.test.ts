import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template, Workspace, WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const ECHO = {
  apply: {
    resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }],
    start: { state: 'started' },
    stop: { state: 'stopped' },
  },
};

async function finished(client: CoveClient, build: WorkspaceBuild): Promise<void> {
  await client.followWorkspaceBuildLogs(build.id, () => undefined);
}

for (const dialect of TEST_DIALECTS) {
  describe(`workspace sharing: GET/PATCH/DELETE /workspaces/{id}/acl (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let alice: CoveClient;
    let user: CoveClient;
    let admin: CoveClient;
    let stranger: CoveClient;
    let grouped: CoveClient;
    let ids: Record<'alice' | 'user' | 'admin' | 'stranger' | 'grouped', string>;
    let orgId: string;
    let groupId: string;
    let template: Template;

    before(async () => {
      test = await startTestDaemon({ database: dialect, flags: { provisionerDaemons: '1' } });
      owner = await createOwner(test);
      alice = await createMember(test, 'alice');
      user = await createMember(test, 'sharer-use');
      admin = await createMember(test, 'sharer-admin');
      stranger = await createMember(test, 'stranger');
      grouped = await createMember(test, 'grouped');
      const idOf = async (client: CoveClient) => (await client.user('me')).id;
      ids = {
        alice: await idOf(alice),
        user: await idOf(user),
        admin: await idOf(admin),
        stranger: await idOf(stranger),
        grouped: await idOf(grouped),
      };
      orgId = test.daemon.identity.defaultOrganization.id;
      // A group with one member, made and joined through the groups routes.
      groupId = (await owner.createGroup(orgId, { name: 'devs', display_name: 'Developers' })).id;
      await owner.patchGroup(groupId, { add_users: [ids.grouped] });
      ({ template } = await createEchoTemplate(owner, 'echo', ECHO));
    });
    after(async () => test?.close());

    async function aliceWorkspace(name: string): Promise<Workspace> {
      const created = await alice.createWorkspace('me', { name, template_id: template.id });
      await finished(alice, created.latest_build);
      return alice.workspace(created.id);
    }

    async function listed(client: CoveClient, q?: string): Promise<string[]> {
      const { workspaces } = await client.workspaces(q === undefined ? {} : { q });
      return workspaces.map((w) => w.name).sort();
    }

    it('use lets a user see, list, start and stop the workspace, not change or delete it; admin also changes and deletes it', async () => {
      const ws = await aliceWorkspace('shared');
      await expectApiError(user.workspace(ws.id), 404);
      assert.deepEqual(await listed(user), []);

      await alice.updateWorkspaceAcl(ws.id, { user_roles: { [ids.user]: 'use', [ids.admin]: 'admin' } });
      const acl = await alice.workspaceAcl(ws.id);
      assert.deepEqual(acl.users.map((u) => [u.username, u.role]).sort(), [
        ['sharer-admin', 'admin'],
        ['sharer-use', 'use'],
      ]);
      assert.deepEqual(acl.group, []);

      // use: read, list, stop, start; no rename, no delete, no sharing.
      assert.equal((await user.workspace(ws.id)).id, ws.id);
      assert.deepEqual(await listed(user), ['shared']);
      assert.deepEqual(await listed(user, 'shared:true'), ['shared']);
      assert.deepEqual(await listed(user, 'shared:false'), []);
      await finished(user, await user.createWorkspaceBuild(ws.id, { transition: 'stop' }));
      await finished(user, await user.createWorkspaceBuild(ws.id, { transition: 'start' }));
      assert.equal((await alice.workspace(ws.id)).latest_build.status, 'running');
      await expectApiError(user.updateWorkspaceAutomaticUpdates(ws.id, 'always'), 403);
      await expectApiError(user.createWorkspaceBuild(ws.id, { transition: 'delete' }), 403);
      await expectApiError(user.updateWorkspaceAcl(ws.id, { user_roles: { [ids.stranger]: 'use' } }), 403);
      // Who else shares it is for those who may share it.
      await expectApiError(user.workspaceAcl(ws.id), 403);
      // The dashboard asks what it may offer them of this very workspace.
      const mayOf = async (client: CoveClient) =>
        client.authCheck({
          read: { action: 'read', object: { resource_type: 'workspace', resource_id: ws.id } },
          update: { action: 'update', object: { resource_type: 'workspace', resource_id: ws.id } },
        });
      assert.deepEqual(await mayOf(user), { read: true, update: false });
      assert.deepEqual(await mayOf(admin), { read: true, update: true });
      assert.deepEqual(await mayOf(stranger), { read: false, update: false });

      // A stranger sees nothing of it.
      await expectApiError(stranger.workspace(ws.id), 404);
      await expectApiError(stranger.workspaceAcl(ws.id), 404);
      await expectApiError(stranger.createWorkspaceBuild(ws.id, { transition: 'stop' }), 404);
      assert.deepEqual(await listed(stranger), []);

      // admin: change its settings, share it further, delete it.
      await admin.updateWorkspaceAutomaticUpdates(ws.id, 'always');
      assert.equal((await alice.workspace(ws.id)).automatic_updates, 'always');
      await admin.updateWorkspaceAcl(ws.id, { user_roles: { [ids.stranger]: 'use' } });
      assert.equal((await stranger.workspace(ws.id)).id, ws.id);
      await finished(admin, await admin.createWorkspaceBuild(ws.id, { transition: 'delete' }));
      await expectApiError(alice.workspace(ws.id), 410);
      assert.deepEqual(await listed(user), []);
    });

    it('a group role reaches the group members, and the Everyone group every member of the organization', async () => {
      const ws = await aliceWorkspace('grouped');
      await alice.updateWorkspaceAcl(ws.id, { group_roles: { [groupId]: 'use' } });
      assert.deepEqual(await listed(grouped), ['grouped']);
      assert.deepEqual(await listed(stranger), []);
      const [group] = (await alice.workspaceAcl(ws.id)).group;
      assert.equal(group?.name, 'devs');
      assert.equal(group?.role, 'use');
      assert.deepEqual(
        group?.members.map((m) => m.username),
        ['grouped'],
      );
      await finished(grouped, await grouped.createWorkspaceBuild(ws.id, { transition: 'stop' }));
      await expectApiError(grouped.updateWorkspaceAutomaticUpdates(ws.id, 'always'), 403);

      await alice.updateWorkspaceAcl(ws.id, { group_roles: { [groupId]: '', [orgId]: 'use' } });
      assert.deepEqual(await listed(stranger), ['grouped']);
      const everyone = (await alice.workspaceAcl(ws.id)).group;
      assert.deepEqual(
        everyone.map((g) => [g.name, g.role]),
        [['Everyone', 'use']],
      );
      assert.ok(everyone[0]?.members.some((m) => m.username === 'stranger'));

      await alice.deleteWorkspaceAcl(ws.id);
      assert.deepEqual(await alice.workspaceAcl(ws.id), { users: [], group: [] });
      assert.deepEqual(await listed(stranger), []);
      await expectApiError(grouped.workspace(ws.id), 404);
    });

    it('removing a user with the empty role takes their access away', async () => {
      const ws = await aliceWorkspace('removed');
      await alice.updateWorkspaceAcl(ws.id, { user_roles: { [ids.user]: 'admin' } });
      assert.equal((await alice.workspaceAcl(ws.id)).users[0]?.role, 'admin');
      await alice.updateWorkspaceAcl(ws.id, { user_roles: { [ids.user]: 'use' } });
      assert.equal((await alice.workspaceAcl(ws.id)).users[0]?.role, 'use');
      await expectApiError(user.updateWorkspaceAutomaticUpdates(ws.id, 'always'), 403);
      await alice.updateWorkspaceAcl(ws.id, { user_roles: { [ids.user]: '' } });
      assert.deepEqual((await alice.workspaceAcl(ws.id)).users, []);
      await expectApiError(user.workspace(ws.id), 404);
    });

    it('a use share grants no start on a dormant workspace', async () => {
      const ws = await aliceWorkspace('sleepy');
      await alice.updateWorkspaceAcl(ws.id, { user_roles: { [ids.user]: 'use' } });
      await finished(alice, await alice.createWorkspaceBuild(ws.id, { transition: 'stop' }));
      await owner.setWorkspaceDormant(ws.id, true);
      assert.equal((await user.workspace(ws.id)).id, ws.id, 'it can still be seen');
      await expectApiError(user.createWorkspaceBuild(ws.id, { transition: 'start' }), 403);
      await owner.setWorkspaceDormant(ws.id, false);
      await finished(user, await user.createWorkspaceBuild(ws.id, { transition: 'start' }));
    });

    it('refuses bad input with 400 naming the field', async () => {
      const ws = await aliceWorkspace('bad-input');
      await expectApiError(
        alice.updateWorkspaceAcl(ws.id, { user_roles: { [ids.user]: 'owner' } }),
        400,
        /user_roles.*not a valid workspace role/,
      );
      await expectApiError(alice.updateWorkspaceAcl(ws.id, { user_roles: { [randomUUID()]: 'use' } }), 400, /user_roles.*not a member/);
      await expectApiError(alice.updateWorkspaceAcl(ws.id, { user_roles: { 'not-a-uuid': 'use' } }), 400, /user_roles/);
      await expectApiError(alice.updateWorkspaceAcl(ws.id, { user_roles: { [ids.alice]: 'use' } }), 400, /user_roles.*owner/);
      await expectApiError(alice.updateWorkspaceAcl(ws.id, { group_roles: { [randomUUID()]: 'use' } }), 400, /group_roles/);
      await expectApiError(alice.updateWorkspaceAcl(ws.id, { group_roles: { [groupId]: 'superuser' } }), 400, /group_roles/);
      assert.deepEqual(await alice.workspaceAcl(ws.id), { users: [], group: [] }, 'nothing was written');
      await expectApiError(alice.workspaceAcl(randomUUID()), 404);
      await expectApiError(alice.workspaceAcl('nope'), 404);
    });

    it('an organization with sharing turned off refuses shares and drops the ones it had', async () => {
      const ws = await aliceWorkspace('unshared');
      await alice.updateWorkspaceAcl(ws.id, { user_roles: { [ids.user]: 'use' }, group_roles: { [groupId]: 'use' } });
      assert.deepEqual(await owner.workspaceSharingSettings(orgId), { sharing_disabled: false });
      await expectApiError(alice.updateWorkspaceSharingSettings(orgId, { sharing_disabled: true }), 403);
      assert.deepEqual(await alice.workspaceSharingSettings(orgId), { sharing_disabled: false }, 'members may read the setting');

      assert.deepEqual(await owner.updateWorkspaceSharingSettings('default', { sharing_disabled: true }), { sharing_disabled: true });
      await expectApiError(user.workspace(ws.id), 404);
      await expectApiError(grouped.workspace(ws.id), 404);
      assert.deepEqual(await listed(user), []);
      assert.deepEqual(await alice.workspaceAcl(ws.id), { users: [], group: [] });
      await expectApiError(alice.updateWorkspaceAcl(ws.id, { user_roles: { [ids.user]: 'use' } }), 403, /sharing is disabled/);

      await owner.updateWorkspaceSharingSettings(orgId, { sharing_disabled: false });
      await alice.updateWorkspaceAcl(ws.id, { user_roles: { [ids.user]: 'use' } });
      assert.equal((await user.workspace(ws.id)).id, ws.id);
    });
  });
}
