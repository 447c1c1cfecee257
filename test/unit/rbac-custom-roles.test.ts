import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authorize, nameRuleError, orgScoped, userSubject, validateCustomOrgRole, type CustomRoleBody } from '../../src/rbac/index.js';

const ORG_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const ORG_B = 'bbbbbbbb-0000-4000-8000-000000000002';
const ALICE = '11111111-0000-4000-8000-000000000001';

const orgAdmin = userSubject({ id: ALICE, siteRoleNames: [], orgRoles: { [ORG_A]: ['organization-admin'] } });
const owner = userSubject({ id: ALICE, siteRoleNames: ['owner'], orgRoles: {} });

function body(overrides: Partial<CustomRoleBody> = {}): CustomRoleBody {
  return {
    name: 'template-editors',
    display_name: 'Template editors',
    site_permissions: [],
    organization_permissions: [
      { negate: false, resource_type: 'template', action: 'read' },
      { negate: false, resource_type: 'template', action: 'update' },
    ],
    user_permissions: [],
    ...overrides,
  };
}

function failure(result: ReturnType<typeof validateCustomOrgRole>): { message: string; detail?: string } {
  assert.equal(result.ok, false);
  return result as { message: string; detail?: string };
}

describe('validateCustomOrgRole', () => {
  it('returns the org-scoped role for a valid request', () => {
    const result = validateCustomOrgRole(orgAdmin, ORG_A, body());
    assert.ok(result.ok);
    assert.equal(result.role.organization_id, ORG_A);
    assert.equal(result.role.name, 'template-editors');
    assert.deepEqual(result.role.site, []);
    assert.deepEqual(result.role.user, []);
    assert.deepEqual(result.role.org, [
      { negate: false, resource_type: 'template', action: 'read' },
      { negate: false, resource_type: 'template', action: 'update' },
    ]);
    // The saved role grants what it says, in its org only.
    const holder = userSubject({ id: 'u', siteRoleNames: [], orgRoles: { [ORG_A]: ['template-editors'] }, customRoles: [result.role] });
    assert.equal(authorize(holder, 'update', orgScoped('template', ORG_A)), true);
    assert.equal(authorize(holder, 'delete', orgScoped('template', ORG_A)), false);
  });

  it('refuses built-in names as reserved', () => {
    for (const name of ['owner', 'member', 'organization-admin', 'organization-member']) {
      assert.deepEqual(failure(validateCustomOrgRole(owner, ORG_A, body({ name }))), {
        ok: false,
        message: 'Reserved role name',
        detail: `"${name}" is a reserved role name, and not allowed to be used`,
      });
    }
  });

  it('applies the name rule', () => {
    const cases: Record<string, string> = {
      '': 'must be >= 1 character',
      ['a'.repeat(33)]: 'must be <= 32 characters',
      new: 'cannot use "new" as a name',
      create: 'cannot use "create" as a name',
      '-ops': 'must be alphanumeric with hyphens',
      'ops--team': 'must be alphanumeric with hyphens',
      ops_team: 'must be alphanumeric with hyphens',
    };
    for (const [name, detail] of Object.entries(cases)) {
      const f = failure(validateCustomOrgRole(owner, ORG_A, body({ name })));
      assert.equal(f.message, 'Invalid role name', name);
      assert.equal(f.detail, detail, name);
    }
    assert.equal(nameRuleError('a'.repeat(32)), undefined);
    assert.equal(nameRuleError('Ops-2'), undefined);
  });

  it('refuses site and user permissions', () => {
    const site = failure(
      validateCustomOrgRole(owner, ORG_A, body({ site_permissions: [{ negate: false, resource_type: 'template', action: 'read' }] })),
    );
    assert.equal(site.message, 'Invalid request, not allowed to assign site wide permissions for an organization role.');
    assert.equal(site.detail, 'organization scoped roles may not contain site wide permissions');
    const user = failure(
      validateCustomOrgRole(owner, ORG_A, body({ user_permissions: [{ negate: false, resource_type: 'api_key', action: 'read' }] })),
    );
    assert.equal(user.message, 'Invalid request, not allowed to assign user permissions for an organization role.');
    assert.equal(user.detail, 'organization scoped roles may not contain user permissions');
  });

  it('refuses invalid, negative and wildcard permissions', () => {
    const perm = (negate: boolean, resource_type: string, action: string) =>
      body({ organization_permissions: [{ negate, resource_type, action }] });
    const detail = (b: CustomRoleBody) => {
      const f = failure(validateCustomOrgRole(owner, ORG_A, b));
      assert.equal(f.message, 'Failed to update role permissions');
      return f.detail;
    };
    assert.equal(detail(perm(false, 'spaceship', 'read')), 'invalid resource type "spaceship"');
    assert.equal(detail(perm(false, 'template', 'ssh')), 'invalid action "ssh" for resource "template"');
    assert.equal(detail(perm(true, 'template', 'read')), 'invalid permission for action="read" type="template", no negative permissions');
    assert.equal(detail(perm(false, 'template', '*')), 'invalid permission for action="*" type="template", no wildcard symbols');
    assert.equal(detail(perm(false, '*', 'read')), 'invalid permission for action="read" type="*", no wildcard symbols');
  });

  it('refuses to let the actor grant what it does not hold in that org', () => {
    const escalate = body({ organization_permissions: [{ negate: false, resource_type: 'workspace', action: 'ssh' }] });
    assert.equal(
      failure(validateCustomOrgRole(orgAdmin, ORG_A, escalate)).detail,
      'invalid permission for action="ssh" type="workspace", not allowed to grant this permission',
    );
    // An org admin holds nothing in another org; the owner holds it everywhere.
    assert.equal(
      failure(validateCustomOrgRole(orgAdmin, ORG_B, body())).detail,
      'invalid permission for action="read" type="template", not allowed to grant this permission',
    );
    assert.equal(validateCustomOrgRole(owner, ORG_A, escalate).ok, true);
  });
});
