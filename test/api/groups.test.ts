import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

for (const dialect of TEST_DIALECTS) {
  describe(`groups (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let member: CoveClient;
    let other: CoveClient;
    let orgAdmin: CoveClient;
    let orgId: string;
    const ids: Record<string, string> = {};
    before(async () => {
      test = await startTestDaemon({ database: dialect });
      owner = await createOwner(test);
      member = await createMember(test, 'member');
      other = await createMember(test, 'other');
      orgAdmin = await createMember(test, 'org-admin');
      orgId = test.daemon.identity.defaultOrganization.id;
      await owner.setMemberRoles(orgId, 'org-admin', ['organization-admin']);
      for (const [name, client] of [
        ['owner', owner],
        ['member', member],
        ['other', other],
        ['org-admin', orgAdmin],
      ] as const) {
        ids[name] = (await client.user('me')).id;
      }
    });
    after(async () => test.close());

    it('creates a group with the reference shape, and refuses bad, reserved and taken names', async () => {
      const made = await orgAdmin.createGroup(orgId, {
        name: 'devs',
        display_name: 'Developers',
        avatar_url: '/d.png',
        quota_allowance: 7,
      });
      assert.equal(made.name, 'devs');
      assert.equal(made.display_name, 'Developers');
      assert.equal(made.organization_id, orgId);
      assert.equal(made.organization_name, 'cove');
      assert.equal(typeof made.organization_display_name, 'string');
      assert.equal(made.avatar_url, '/d.png');
      assert.equal(made.quota_allowance, 7);
      assert.equal(made.source, 'user');
      assert.deepEqual(made.members, []);
      assert.equal(made.total_member_count, 0);

      await expectApiError(owner.createGroup(orgId, { name: 'devs' }), 409);
      const bad = await expectApiError(owner.createGroup(orgId, { name: 'not valid!' }), 400);
      assert.deepEqual(
        bad.body.validations?.map((v) => v.field),
        ['name'],
      );
      await expectApiError(owner.createGroup(orgId, { name: 'new' }), 400);
      await expectApiError(owner.createGroup(orgId, { name: 'x'.repeat(256) }), 400);
      const reserved = await expectApiError(owner.createGroup(orgId, { name: 'Everyone' }), 400);
      assert.match(reserved.body.validations?.[0]?.detail ?? '', /reserved/);
      await expectApiError(owner.createGroup(orgId, { name: 'neg', quota_allowance: -1 }), 400);
      // A long name fits: provider groups keep their names.
      assert.equal((await owner.createGroup(orgId, { name: 'a'.repeat(100) })).name.length, 100);
    });

    it('adds and removes members, who then read the group; outsiders of the organization cannot join', async () => {
      const devs = await owner.organizationGroup(orgId, 'devs');
      // Not yet a member: the group is invisible to them.
      await expectApiError(member.group(devs.id), 404);
      const added = await owner.patchGroup(devs.id, { add_users: [ids['member'] ?? '', ids['other'] ?? ''] });
      assert.deepEqual(
        added.members.map((m) => m.username),
        ['member', 'other'],
      );
      assert.equal(added.total_member_count, 2);
      const first = added.members[0];
      assert.equal(first?.email, 'member@example.com');
      assert.equal(first?.status, 'active');
      assert.equal(first?.login_type, 'password');
      assert.ok(first?.created_at);

      // The member's session learned of the group at once: they read it, seeing themselves only.
      const seen = await member.group(devs.id);
      assert.deepEqual(
        seen.members.map((m) => m.username),
        ['member'],
      );
      assert.equal(seen.total_member_count, 2);
      // But may not change it.
      await expectApiError(member.patchGroup(devs.id, { quota_allowance: 100 }), 403);
      await expectApiError(member.deleteGroup(devs.id), 403);

      const island = await owner.createOrganization({ name: 'island' });
      const outsider = await owner.createUser({
        email: 'loner@example.com',
        username: 'loner',
        password: 'a-Strong-passw0rd!',
        organization_ids: [island.id],
      });
      const refused = await expectApiError(owner.patchGroup(devs.id, { add_users: [outsider.id] }), 400);
      assert.match(refused.body.message, new RegExp(outsider.id));
      await expectApiError(owner.patchGroup(devs.id, { add_users: ['loner'] }), 400);

      const removed = await owner.patchGroup(devs.id, { remove_users: [ids['other'] ?? ''] });
      assert.deepEqual(
        removed.members.map((m) => m.username),
        ['member'],
      );
      await expectApiError(other.group(devs.id), 404);
    });

    it('edits fields, renames, and refuses a taken name', async () => {
      const devs = await owner.organizationGroup(orgId, 'devs');
      await owner.createGroup(orgId, { name: 'ops' });
      const clash = await expectApiError(owner.patchGroup(devs.id, { name: 'ops' }), 409);
      assert.match(clash.body.message, /ops/);
      const edited = await orgAdmin.patchGroup(devs.id, { name: 'developers', display_name: '', quota_allowance: 12, avatar_url: null });
      assert.equal(edited.name, 'developers');
      assert.equal(edited.display_name, '');
      assert.equal(edited.quota_allowance, 12);
      assert.equal(edited.avatar_url, '/d.png');
      // The same name again is no rename.
      assert.equal((await owner.patchGroup(devs.id, { name: 'developers' })).name, 'developers');
      await expectApiError(owner.patchGroup(devs.id, { name: 'bad name' }), 400);
      await expectApiError(owner.patchGroup(devs.id, { display_name: ' padded ' }), 400);
    });

    it('keeps the Everyone group: its members are the organization, it is not renamed, joined or deleted', async () => {
      const everyone = await owner.group(orgId);
      assert.equal(everyone.name, 'Everyone');
      assert.deepEqual(
        everyone.members.map((m) => m.username),
        ['member', 'org-admin', 'other', 'owner'],
      );
      assert.equal(everyone.total_member_count, 4);
      assert.equal((await owner.organizationGroup(orgId, 'Everyone')).id, orgId);
      // Every member of the organization reads it, and sees themselves in it.
      const asMember = await member.group(orgId);
      assert.deepEqual(
        asMember.members.map((m) => m.username),
        ['member'],
      );
      assert.equal(asMember.total_member_count, 4);

      const rename = await expectApiError(owner.patchGroup(orgId, { name: 'all' }), 400);
      assert.match(rename.body.message, /Everyone/);
      const join = await expectApiError(owner.patchGroup(orgId, { add_users: [ids['member'] ?? ''] }), 400);
      assert.match(join.body.message, /Everyone/);
      await expectApiError(owner.patchGroup(orgId, { remove_users: [ids['member'] ?? ''] }), 400);
      await expectApiError(owner.patchGroup(orgId, { display_name: 'All' }), 400);
      const del = await expectApiError(owner.deleteGroup(orgId), 400);
      assert.match(del.body.message, /Everyone/);
      // Its allowance and avatar may change.
      const allowance = await owner.patchGroup(orgId, { quota_allowance: 3, avatar_url: '/all.png' });
      assert.equal(allowance.quota_allowance, 3);
      assert.equal(allowance.avatar_url, '/all.png');
      assert.equal(allowance.total_member_count, 4);
    });

    it('lists groups with the reference filters, and each caller only those they may read', async () => {
      const all = await owner.groups();
      assert.deepEqual(
        all.filter((g) => g.organization_id === orgId).map((g) => g.name),
        ['Everyone', 'a'.repeat(100), 'developers', 'ops'],
      );
      assert.deepEqual(
        (await owner.organizationGroups(orgId)).map((g) => g.name),
        ['Everyone', 'a'.repeat(100), 'developers', 'ops'],
      );
      assert.deepEqual(
        (await owner.groups({ organization: 'cove' })).map((g) => g.name),
        ['Everyone', 'a'.repeat(100), 'developers', 'ops'],
      );
      // has_member by username or id, the Everyone group included.
      assert.deepEqual(
        (await owner.groups({ hasMember: 'member' })).map((g) => g.name),
        ['Everyone', 'developers'],
      );
      assert.deepEqual(
        (await owner.groups({ hasMember: ids['other'] ?? '' })).map((g) => g.name),
        ['Everyone'],
      );
      const ops = await owner.organizationGroup(orgId, 'ops');
      assert.deepEqual(
        (await owner.groups({ groupIds: [ops.id, orgId] })).map((g) => g.name),
        ['Everyone', 'ops'],
      );
      // A member sees the groups they belong to.
      assert.deepEqual(
        (await member.groups()).map((g) => g.name),
        ['Everyone', 'developers'],
      );
      assert.deepEqual(
        (await other.organizationGroups(orgId)).map((g) => g.name),
        ['Everyone'],
      );
      // Bad filters are a 400 naming the parameter.
      const bad = await expectApiError(owner.groups({ organization: 'nowhere', hasMember: 'nobody', groupIds: ['nope'] }), 400);
      assert.deepEqual(
        bad.body.validations?.map((v) => v.field),
        ['organization', 'has_member', 'group_ids'],
      );
    });

    it('hides the groups of other organizations', async () => {
      const labs = await owner.createOrganization({ name: 'labs' });
      const secret = await owner.createGroup(labs.id, { name: 'secret' });
      await expectApiError(member.group(secret.id), 404);
      await expectApiError(member.group(labs.id), 404);
      await expectApiError(member.organizationGroups(labs.id), 404);
      await expectApiError(member.organizationGroup(labs.id, 'secret'), 404);
      await expectApiError(orgAdmin.createGroup(labs.id, { name: 'mine' }), 404);
      await expectApiError(orgAdmin.patchGroup(secret.id, { quota_allowance: 1 }), 404);
      assert.ok(!(await orgAdmin.groups()).some((g) => g.organization_id === labs.id));
      // Another organization's members cannot join.
      await expectApiError(owner.patchGroup(secret.id, { add_users: [ids['member'] ?? ''] }), 400);
      await expectApiError(owner.group('not-a-uuid'), 404);
      await expectApiError(owner.organizationGroup(orgId, 'missing'), 404);
    });

    it('lets organization admins create and delete groups and members only read', async () => {
      await expectApiError(member.createGroup(orgId, { name: 'members-own' }), 403);
      const temp = await orgAdmin.createGroup(orgId, { name: 'temp' });
      await owner.patchGroup(temp.id, { add_users: [ids['member'] ?? ''] });
      assert.equal((await member.group(temp.id)).name, 'temp');
      assert.deepEqual(await orgAdmin.deleteGroup(temp.id), { message: 'Successfully deleted group!' });
      await expectApiError(owner.group(temp.id), 404);
      // Deleting the group dropped the member's view of it at once.
      assert.ok(!(await member.groups()).some((g) => g.id === temp.id));
    });
  });
}
