import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('role listings', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    member = await createMember(test, 'member');
  });
  after(async () => test.close());

  it('lists the built-in site roles, assignable only by those who may assign them', async () => {
    const roles = await owner.siteRoles();
    assert.deepEqual(roles.map((r) => r.name).sort(), ['auditor', 'owner', 'template-admin', 'user-admin']);
    assert.ok(roles.every((r) => r.built_in && r.assignable && r.organization_id === undefined));
    const auditor = roles.find((r) => r.name === 'auditor');
    assert.ok(auditor?.site_permissions.some((p) => p.resource_type === 'deployment_config' && p.action === 'read'));
    const seenByMember = await member.siteRoles();
    assert.ok(seenByMember.every((r) => !r.assignable));
  });

  it('lists the organization roles without the implicit member role', async () => {
    const orgId = test.daemon.identity.defaultOrganization.id;
    const roles = await owner.organizationRoles(orgId);
    const names = roles.map((r) => r.name);
    assert.ok(names.includes('organization-admin'));
    assert.ok(!names.includes('organization-member'));
    assert.ok(roles.every((r) => r.organization_id === orgId && r.assignable && r.built_in));
    const asMember = await member.organizationRoles('default');
    assert.ok(asMember.every((r) => !r.assignable));
    await expectApiError(member.organizationRoles('9f0c2b1e-4a5d-4c3b-8e7f-6a5b4c3d2e1f'), 404);
  });
});
