import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('organization roles and custom roles', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let bob: CoveClient;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
  });
  after(async () => test.close());

  it('assigns organization roles, with effect at once', async () => {
    assert.equal((await alice.organizationMembers('default')).length, 1);
    const member = await owner.setMemberRoles('default', 'alice', ['organization-admin']);
    assert.deepEqual(
      member.roles.map((r) => r.name),
      ['organization-admin'],
    );
    assert.equal((await alice.organizationMembers('default')).length, 3, 'an organization admin reads every member');
    await expectApiError(alice.setMemberRoles('default', 'me', []), 400);
    await expectApiError(owner.setMemberRoles('default', 'bob', ['owner']), 400);
    await expectApiError(owner.setMemberRoles('default', 'bob', ['organization-admin:x']), 400);
    // Bob cannot see Alice's membership at all.
    await expectApiError(bob.setMemberRoles('default', 'alice', []), 404);
  });

  it('creates custom roles within the rules and assigns them', async () => {
    const read = { negate: false, resource_type: 'organization_member', action: 'read' };
    const reserved = await expectApiError(
      owner.createCustomRole('default', { name: 'organization-admin', organization_permissions: [read] }),
      400,
    );
    assert.equal(reserved.message, 'Reserved role name');
    await expectApiError(
      owner.createCustomRole('default', { name: 'wild', organization_permissions: [{ negate: false, resource_type: '*', action: '*' }] }),
      400,
    );
    await expectApiError(owner.createCustomRole('default', { name: 'neg', organization_permissions: [{ ...read, negate: true }] }), 400);
    await expectApiError(owner.createCustomRole('default', { name: 'site', site_permissions: [read] }), 400);
    const created = await owner.createCustomRole('default', {
      name: 'member-reader',
      display_name: 'Member Reader',
      organization_permissions: [read],
    });
    assert.equal(created?.name, 'member-reader');
    await expectApiError(owner.createCustomRole('default', { name: 'member-reader', organization_permissions: [read] }), 400);
    await expectApiError(bob.createCustomRole('default', { name: 'sneaky', organization_permissions: [read] }), 403);

    assert.equal((await bob.organizationMembers('default')).length, 1);
    await owner.setMemberRoles('default', 'bob', ['member-reader']);
    assert.equal((await bob.organizationMembers('default')).length, 3, 'the custom role takes effect at once');
    // Now he can see memberships, but still may not assign roles.
    const denied = await expectApiError(bob.setMemberRoles('default', 'owner', ['organization-auditor']), 403);
    assert.equal(denied.message, 'Forbidden.');
    const listed = await owner.organizationRoles('default');
    assert.ok(listed.some((r) => r.name === 'member-reader' && !r.built_in && r.assignable));

    await owner.updateCustomRole('default', { name: 'member-reader', display_name: 'Readers', organization_permissions: [] });
    assert.equal((await bob.organizationMembers('default')).length, 1, 'an emptied role grants nothing at once');
    await expectApiError(owner.updateCustomRole('default', { name: 'missing', organization_permissions: [] }), 404);
    const remaining = await owner.deleteCustomRole('default', 'member-reader');
    assert.deepEqual(remaining, []);
    const gone = await expectApiError(owner.deleteCustomRole('default', 'member-reader'), 404);
    assert.equal(gone.message, 'No custom role with the name member-reader found');
    await expectApiError(bob.deleteCustomRole('default', 'anything'), 403);
  });
});
