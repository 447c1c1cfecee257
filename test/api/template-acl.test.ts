import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/lib/random.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template } from '../../src/sdk/wire/index.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Template permissions: a template made without the Everyone group's access is invisible and
 * unusable to a member outside its ACL, in lists, reads and workspace creation alike, until a user
 * or group entry lets them in; `use` and `admin` differ in who may change the template and its ACL.
 */
for (const dialect of TEST_DIALECTS) {
  describe(`template ACLs (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let alice: CoveClient;
    let bob: CoveClient;
    let aliceId: string;
    let bobId: string;
    let orgId: string;
    let open: Template;
    let closed: Template;
    let workspaces = 0;

    before(async () => {
      test = await startTestDaemon({ database: dialect, flags: { provisionerDaemons: '1' } });
      owner = await createOwner(test);
      alice = await createMember(test, 'alice');
      bob = await createMember(test, 'bob');
      aliceId = (await alice.user('me')).id;
      bobId = (await bob.user('me')).id;
      orgId = test.daemon.identity.defaultOrganization.id;
      open = (await createEchoTemplate(owner, 'open', {})).template;
      closed = (await createEchoTemplate(owner, 'closed', {}, { settings: { disable_everyone_group_access: true } })).template;
    });
    after(() => test.close());

    /** Asserts everything a member might read or do with the closed template, which `visible` says they may or may not. */
    const expectAccess = async (client: CoveClient, visible: boolean) => {
      const listed = (await client.templates()).map((template) => template.name);
      assert.equal(listed.includes('closed'), visible, `closed template in the list: ${listed.join(',')}`);
      assert.ok(listed.includes('open'), 'the Everyone template stays listed');
      const organizationListed = (await client.organizationTemplates('default')).map((template) => template.name);
      assert.equal(organizationListed.includes('closed'), visible);
      const reads: [string, () => Promise<unknown>][] = [
        ['template', () => client.template(closed.id)],
        ['templateByName', () => client.templateByName('default', 'closed')],
        ['templateVersions', () => client.templateVersions(closed.id)],
        ['templateVersion', () => client.templateVersion(closed.active_version_id)],
      ];
      if (visible) {
        for (const [what, read] of reads) await assert.doesNotReject(read, what);
        const created = await client.createWorkspace('me', { name: `ws${++workspaces}`, template_id: closed.id });
        assert.equal(created.template_id, closed.id);
        return;
      }
      for (const [, read] of reads) await expectApiError(read(), 404);
      // Creating from it answers exactly as from a template that does not exist.
      const hidden = await expectApiError(client.createWorkspace('me', { name: 'nope', template_id: closed.id }), 400);
      const missingId = newId();
      const missing = await expectApiError(client.createWorkspace('me', { name: 'nope', template_id: missingId }), 400);
      assert.deepEqual(hidden.body.validations, missing.body.validations);
      assert.equal(hidden.body.message.replace(closed.id, missingId), missing.body.message);
      await expectApiError(client.createWorkspace('me', { name: 'nope', template_version_id: closed.active_version_id }), 400);
    };

    it('creates a template without the Everyone group when asked, and with it by default', async () => {
      const openAcl = await owner.templateAcl(open.id);
      assert.deepEqual(openAcl.users, []);
      assert.deepEqual(
        openAcl.group.map((group) => [group.id, group.name, group.role]),
        [[orgId, 'Everyone', 'use']],
      );
      const everyone = openAcl.group[0];
      assert.equal(everyone?.organization_name, test.daemon.identity.defaultOrganization.name);
      assert.ok(
        everyone?.members.some((member) => member.id === aliceId),
        'the Everyone group lists the organization members',
      );
      assert.deepEqual(await owner.templateAcl(closed.id), { users: [], group: [] });
    });

    it('hides a template from a member outside its ACL, and a user entry lets them in and out', async () => {
      await expectAccess(alice, false);
      assert.deepEqual(await owner.updateTemplateAcl(closed.id, { user_perms: { [aliceId]: 'use' } }), {
        message: 'Successfully updated template ACL list.',
      });
      const acl = await owner.templateAcl(closed.id);
      assert.deepEqual(
        acl.users.map((user) => [user.username, user.role]),
        [['alice', 'use']],
      );
      assert.deepEqual(acl.users[0]?.organization_ids, [orgId]);
      await expectAccess(alice, true);
      await expectAccess(bob, false);
      await owner.updateTemplateAcl(closed.id, { user_perms: { [aliceId]: '' } });
      assert.deepEqual((await owner.templateAcl(closed.id)).users, []);
      await expectAccess(alice, false);
    });

    it('lets an ACL admin change the template and its ACL, and not a user of it', async () => {
      await owner.updateTemplateAcl(closed.id, { user_perms: { [aliceId]: 'use' } });
      await expectApiError(alice.updateTemplateAcl(closed.id, { user_perms: { [bobId]: 'use' } }), 403);
      await expectApiError(alice.updateTemplate(closed.id, { description: 'by a user' }), 403);
      await expectApiError(alice.templateAclAvailable(closed.id), 404);
      // Whom the ACL names (and its groups' members, with their emails) is for those who may change it.
      await expectApiError(alice.templateAcl(closed.id), 404);
      await expectAccess(bob, false);

      await owner.updateTemplateAcl(closed.id, { user_perms: { [aliceId]: 'admin' } });
      assert.equal((await owner.templateAcl(closed.id)).users[0]?.role, 'admin');
      const available = await alice.templateAclAvailable(closed.id);
      assert.deepEqual(available.users.map((user) => user.username).sort(), ['alice', 'bob', 'owner']);
      assert.ok(available.groups.some((group) => group.id === orgId && group.name === 'Everyone'));
      await alice.updateTemplateAcl(closed.id, { user_perms: { [bobId]: 'use' } });
      assert.equal((await alice.updateTemplate(closed.id, { description: 'by an admin' }))?.description, 'by an admin');
      await expectAccess(bob, true);
      // A user of it cannot make themselves admin.
      await expectApiError(bob.updateTemplateAcl(closed.id, { user_perms: { [bobId]: 'admin' } }), 403);

      await owner.updateTemplateAcl(closed.id, { user_perms: { [aliceId]: '', [bobId]: '' } });
      await expectAccess(alice, false);
      await expectAccess(bob, false);
    });

    it('grants through the Everyone group entry and through a group the member is in', async () => {
      await owner.updateTemplateAcl(closed.id, { group_perms: { [orgId]: 'use' } });
      await expectAccess(alice, true);
      await owner.updateTemplateAcl(closed.id, { group_perms: { [orgId]: '' } });
      await expectAccess(alice, false);

      // The group is made and joined through the groups routes, as an administrator would.
      const { id: groupId } = await owner.createGroup(orgId, { name: 'builders', display_name: 'Builders' });
      await owner.patchGroup(groupId, { add_users: [bobId] });
      await owner.updateTemplateAcl(closed.id, { group_perms: { [groupId]: 'use' } });
      const [group] = (await owner.templateAcl(closed.id)).group;
      assert.equal(group?.name, 'builders');
      assert.equal(group?.role, 'use');
      assert.equal(group?.total_member_count, 1);
      assert.deepEqual(
        group?.members.map((member) => member.username),
        ['bob'],
      );
      await expectAccess(bob, true);
      await expectAccess(alice, false);

      // Leaving the group takes the access away.
      await owner.patchGroup(groupId, { remove_users: [bobId] });
      await expectAccess(bob, false);
      await owner.updateTemplateAcl(closed.id, { group_perms: { [groupId]: '' } });
      assert.deepEqual((await owner.templateAcl(closed.id)).group, []);
    });

    it("answers in the reference client's shapes (TemplateACL, TemplateUser, TemplateGroup, ACLAvailable)", async () => {
      // The fields of the reference's types; name and avatar are left out when empty, as its server does.
      const reducedUser = ['created_at', 'email', 'id', 'last_seen_at', 'login_type', 'status', 'updated_at', 'username'];
      const group = [
        'avatar_url',
        'display_name',
        'id',
        'members',
        'name',
        'organization_display_name',
        'organization_id',
        'organization_name',
        'quota_allowance',
        'source',
        'total_member_count',
      ];
      const keys = (value: object) => Object.keys(value).sort();
      await owner.updateTemplateAcl(open.id, { user_perms: { [aliceId]: 'admin' } });
      const acl = await owner.request<Record<string, unknown>>('GET', `/templates/${open.id}/acl`);
      assert.deepEqual(keys(acl), ['group', 'users']);
      const { users, group: groups } = await owner.templateAcl(open.id);
      assert.deepEqual(keys(users[0] ?? {}), [...reducedUser, 'organization_ids', 'role', 'roles'].sort());
      assert.deepEqual(keys(groups[0] ?? {}), [...group, 'role'].sort());
      assert.deepEqual(keys(groups[0]?.members[0] ?? {}), reducedUser);
      assert.equal(groups[0]?.source, 'user');
      assert.equal(groups[0]?.total_member_count, groups[0]?.members.length);
      const available = await owner.templateAclAvailable(open.id);
      assert.deepEqual(keys(available), ['groups', 'users']);
      assert.deepEqual(keys(available.users[0] ?? {}), reducedUser);
      assert.deepEqual(keys(available.groups[0] ?? {}), group);
      // The pickers search and page the users in SQL, as the reference's client asks (`?q=&limit=`).
      const names = async (query: { q?: string; limit?: number; offset?: number }) =>
        (await owner.templateAclAvailable(open.id, query)).users.map((user) => user.username);
      assert.deepEqual(await names({ q: 'BO' }), ['bob']);
      assert.deepEqual(await names({ limit: 1, offset: 1 }), [(await names({}))[1]]);
      await expectApiError(owner.templateAclAvailable(open.id, { limit: -1 }), 400);
      await owner.updateTemplateAcl(open.id, { user_perms: { [aliceId]: '' } });
    });

    it('refuses bad roles and ids, naming the field, and changes nothing then', async () => {
      const cases: [Parameters<CoveClient['updateTemplateAcl']>[1], RegExp][] = [
        [{ user_perms: { [aliceId]: 'owner' } }, /user_perms.*not a valid template role/],
        [{ group_perms: { [orgId]: 'read' } }, /group_perms.*not a valid template role/],
        [{ user_perms: { 'not-a-uuid': 'use' } }, /user_perms.*not-a-uuid is not a valid UUID/],
        [{ user_perms: { [newId()]: 'use' } }, /user_perms.*does not exist/],
        [{ group_perms: { [newId()]: 'admin' } }, /group_perms.*does not exist/],
        [{ user_perms: { [aliceId]: 'use' }, group_perms: { [newId()]: 'use' } }, /group_perms.*does not exist/],
      ];
      for (const [body, says] of cases) {
        const error = await expectApiError(owner.updateTemplateAcl(closed.id, body), 400, says);
        assert.equal(error.body.message, 'Invalid request to update template ACL');
      }
      assert.deepEqual(await owner.templateAcl(closed.id), { users: [], group: [] });
      // Removing an entry that names nothing any more is allowed, so stale entries can be cleaned.
      await owner.updateTemplateAcl(closed.id, { user_perms: { [newId()]: '' } });
      // A template of no such id is a 404, and a member cannot change an ACL they cannot see.
      await expectApiError(owner.templateAcl(newId()), 404);
      await expectApiError(alice.updateTemplateAcl(closed.id, { user_perms: { [aliceId]: 'admin' } }), 404);
      await expectAccess(alice, false);
    });
  });
}
