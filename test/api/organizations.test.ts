import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('organizations and members', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    member = await createMember(test, 'member');
  });
  after(async () => test.close());

  it('creates, renames and refuses bad or taken names', async () => {
    const org = await owner.createOrganization({ name: 'research', description: 'R&D' });
    assert.equal(org.display_name, 'research');
    assert.equal(org.is_default, false);
    await expectApiError(owner.createOrganization({ name: 'research' }), 409);
    await expectApiError(owner.createOrganization({ name: 'default' }), 400);
    const bad = await expectApiError(owner.createOrganization({ name: 'Not Valid' }), 400);
    assert.deepEqual(
      bad.body.validations?.map((v) => v.field),
      ['name'],
    );
    await expectApiError(member.createOrganization({ name: 'mine' }), 403);
    const renamed = await owner.updateOrganization('research', { display_name: 'Research Lab', icon: '/icon.svg' });
    assert.equal(renamed.display_name, 'Research Lab');
    assert.equal(renamed.name, 'research');
    const clash = await expectApiError(owner.updateOrganization('research', { name: 'cove' }), 409);
    assert.deepEqual(
      clash.body.validations?.map((v) => v.field),
      ['name'],
    );
    await expectApiError(member.updateOrganization('research', { display_name: 'x' }), 404);
  });

  it('adds and removes members; a member then sees the organization', async () => {
    await expectApiError(member.organization('research'), 404);
    const added = await owner.addMember('research', 'member');
    assert.deepEqual(added.roles, []);
    await expectApiError(owner.addMember('research', 'member'), 400);
    assert.equal((await member.organization('research')).name, 'research');
    const list = await owner.organizationMembers('research');
    assert.deepEqual(list.map((m) => m.username).sort(), ['member', 'owner']);
    const page = await owner.paginatedMembers('research', { limit: 1, offset: 1 });
    assert.equal(page.count, 2);
    assert.equal(page.members.length, 1);
    // A plain member sees only their own membership.
    assert.deepEqual(
      (await member.organizationMembers('research')).map((m) => m.username),
      ['member'],
    );
    await expectApiError(member.removeMember('research', 'owner'), 404);
    await expectApiError(owner.removeMember('research', 'me'), 400);
    await expectApiError(owner.addMember('research', 'nobody'), 400);
  });

  it('refuses to delete the default organization or one with members, then deletes an empty one', async () => {
    await expectApiError(owner.deleteOrganization('default'), 400);
    const busy = await expectApiError(owner.deleteOrganization('research'), 400);
    assert.match(busy.detail ?? '', /has 2 members; 1 of them is not an organization admin/);
    await owner.removeMember('research', 'member');
    await expectApiError(member.organization('research'), 404);
    assert.equal((await owner.deleteOrganization('research')).message, 'Organization has been deleted.');
    await expectApiError(owner.organization('research'), 404);
  });
});
