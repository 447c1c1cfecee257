import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ACTIONS,
  ORG_ROLE_NAMES,
  RESOURCE_ACTIONS,
  RESOURCE_TYPES,
  SITE_ROLE_NAMES,
  builtInOrgRole,
  builtInSiteRole,
  canAssignRole,
  isBuiltInRoleName,
  isValidPermission,
  memberOrgIds,
  permissionError,
  userSubject,
  type Permission,
  type Role,
} from '../../src/rbac/index.js';
import { systemSubject } from '../helpers/wildcard-subject.js';

const ORG_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const ORG_B = 'bbbbbbbb-0000-4000-8000-000000000002';
const ALICE = '11111111-0000-4000-8000-000000000001';

const has = (perms: readonly Permission[], type: string, action: string, negate = false): boolean =>
  perms.some((p) => p.resource_type === type && p.action === action && p.negate === negate);

describe('policy vocabulary', () => {
  it('has the spec’s 16 actions and 36 concrete resource types', () => {
    assert.equal(ACTIONS.length, 16);
    assert.equal(RESOURCE_TYPES.length, 36);
    assert.ok(!(RESOURCE_TYPES as readonly string[]).includes('*'));
    for (const type of RESOURCE_TYPES) assert.ok(RESOURCE_ACTIONS[type].length > 0, type);
    for (const type of RESOURCE_TYPES) for (const a of RESOURCE_ACTIONS[type]) assert.ok(ACTIONS.includes(a), `${type}.${a}`);
  });

  it('lists the reference actions per type', () => {
    assert.deepEqual([...RESOURCE_ACTIONS.deployment_config], ['read', 'update']);
    assert.deepEqual([...RESOURCE_ACTIONS.prebuilt_workspace], ['update', 'delete']);
    assert.deepEqual([...RESOURCE_ACTIONS.assign_role], ['assign', 'unassign', 'read']);
    assert.ok(RESOURCE_ACTIONS.workspace.includes('application_connect'));
    assert.ok(RESOURCE_ACTIONS.template.includes('view_insights'));
  });

  it('validates permissions: wildcards always, unknown types or mismatched actions never', () => {
    assert.equal(isValidPermission({ resource_type: '*', action: '*' }), true);
    assert.equal(isValidPermission({ resource_type: '*', action: 'read' }), true);
    assert.equal(isValidPermission({ resource_type: 'template', action: '*' }), true);
    assert.equal(isValidPermission({ resource_type: 'template', action: 'use' }), true);
    assert.equal(isValidPermission({ resource_type: 'template', action: 'ssh' }), false);
    assert.equal(isValidPermission({ resource_type: 'deployment_config', action: 'delete' }), false);
    assert.equal(isValidPermission({ resource_type: 'spaceship', action: 'read' }), false);
    assert.equal(permissionError({ resource_type: 'spaceship', action: 'read' }), 'invalid resource type "spaceship"');
    assert.equal(permissionError({ resource_type: 'template', action: 'ssh' }), 'invalid action "ssh" for resource "template"');
  });
});

describe('built-in roles', () => {
  it('names every site and org role with the reference display names', () => {
    assert.deepEqual(
      SITE_ROLE_NAMES.map((n) => builtInSiteRole(n)?.display_name),
      ['Owner', 'Member', 'Template Admin', 'User Admin', 'Auditor'],
    );
    assert.deepEqual(
      ORG_ROLE_NAMES.map((n) => builtInOrgRole(n, ORG_A)?.display_name),
      [
        'Organization Admin',
        '',
        'Organization Auditor',
        'Organization User Admin',
        'Organization Template Admin',
        'Organization Workspace Creation Ban',
      ],
    );
  });

  it('scopes org roles to their org and site roles to none, and knows no other names', () => {
    assert.equal(builtInSiteRole('owner')?.organization_id, '');
    assert.equal(builtInOrgRole('organization-admin', ORG_B)?.organization_id, ORG_B);
    assert.equal(builtInSiteRole('organization-admin'), undefined);
    assert.equal(builtInOrgRole('owner', ORG_A), undefined);
    assert.equal(builtInSiteRole('root'), undefined);
    assert.equal(isBuiltInRoleName('organization-member'), true);
    assert.equal(isBuiltInRoleName('member'), true);
    assert.equal(isBuiltInRoleName('ops'), false);
  });

  it('owner gets explicit lists for the workspace types and a per-type wildcard for the rest', () => {
    const owner = builtInSiteRole('owner');
    assert.ok(owner);
    assert.ok(!owner.site.some((p) => p.resource_type === '*'));
    assert.ok(has(owner.site, 'license', '*'));
    assert.ok(!has(owner.site, 'workspace', '*'));
    assert.ok(has(owner.site, 'workspace', 'ssh'));
    assert.ok(!has(owner.site, 'workspace_dormant', 'start'));
    assert.deepEqual(owner.org, []);
    assert.deepEqual(owner.user, []);
    const noExec = builtInSiteRole('owner', { disableOwnerWorkspaceExec: true });
    assert.ok(noExec && !has(noExec.site, 'workspace', 'ssh') && !has(noExec.site, 'workspace', 'application_connect'));
    assert.ok(has(noExec.site, 'workspace', 'update'));
  });

  it('member: user-level wildcard excludes user, organization_member and prebuilt workspaces', () => {
    const member = builtInSiteRole('member');
    assert.ok(member);
    assert.ok(has(member.user, 'workspace', '*'));
    assert.ok(!member.user.some((p) => p.resource_type === 'organization_member'));
    assert.ok(!member.user.some((p) => p.resource_type === 'prebuilt_workspace'));
    assert.ok(has(member.user, 'user', 'update_personal') && !has(member.user, 'user', 'update'));
    assert.ok(has(member.site, 'assign_role', 'read'));
  });

  it('organization-admin never gets assign_role; the creation ban is negative', () => {
    const admin = builtInOrgRole('organization-admin', ORG_A);
    assert.ok(admin);
    assert.ok(!admin.org.some((p) => p.resource_type === 'assign_role'));
    assert.ok(has(admin.site, 'user', 'read'));
    const ban = builtInOrgRole('organization-workspace-creation-ban', ORG_A);
    assert.ok(ban && has(ban.org, 'workspace', 'create', true) && ban.org.every((p) => p.negate));
  });

  it('organization-member reads the org, its role list and provisioner daemons, and its own membership', () => {
    const om = builtInOrgRole('organization-member', ORG_A);
    assert.ok(om);
    assert.ok(has(om.org, 'organization', 'read') && has(om.org, 'assign_org_role', 'read') && has(om.org, 'provisioner_daemon', 'read'));
    assert.ok(has(om.user, 'organization_member', 'read'));
  });
});

describe('subjects', () => {
  const custom: Role = { name: 'ops', display_name: 'Ops', organization_id: ORG_A, site: [], org: [], user: [] };

  it('adds member and organization-member implicitly and skips unknown names', () => {
    const s = userSubject({
      id: ALICE,
      siteRoleNames: ['auditor', 'nonsense', 'organization-admin'],
      orgRoles: { [ORG_A]: ['organization-admin', 'owner'], [ORG_B]: [] },
    });
    assert.deepEqual(
      s.roles.map((r) => `${r.name}@${r.organization_id}`),
      ['member@', 'auditor@', `organization-member@${ORG_A}`, `organization-admin@${ORG_A}`, `organization-member@${ORG_B}`],
    );
    assert.equal(s.scope, 'all');
    assert.equal(s.type, 'user');
    assert.deepEqual(memberOrgIds(s), [ORG_A, ORG_B]);
  });

  it('matches custom roles by name and organization', () => {
    const s = userSubject({ id: ALICE, siteRoleNames: ['ops'], orgRoles: { [ORG_A]: ['ops'], [ORG_B]: ['ops'] }, customRoles: [custom] });
    assert.deepEqual(
      s.roles.filter((r) => r.name === 'ops').map((r) => r.organization_id),
      [ORG_A],
    );
  });

  it('does not duplicate stored implicit roles', () => {
    const s = userSubject({ id: ALICE, siteRoleNames: ['member'], orgRoles: { [ORG_A]: ['organization-member'] } });
    assert.equal(s.roles.length, 2);
  });

  it('system subjects are named, system typed and hold a site wildcard', () => {
    const s = systemSubject('provisioner');
    assert.equal(s.name, 'provisioner');
    assert.equal(s.type, 'system');
    assert.deepEqual(s.roles[0]?.site, [{ negate: false, resource_type: '*', action: '*' }]);
    assert.deepEqual(memberOrgIds(s), []);
  });
});

describe('canAssignRole', () => {
  const subject = (site: string[], orgs: Record<string, string[]> = {}) => userSubject({ id: ALICE, siteRoleNames: site, orgRoles: orgs });

  it('owner assigns every built-in role and custom roles of either scope', () => {
    const owner = subject(['owner']);
    for (const name of SITE_ROLE_NAMES) assert.equal(canAssignRole(owner, name, '', false), true, name);
    for (const name of ORG_ROLE_NAMES) assert.equal(canAssignRole(owner, name, ORG_A, false), true, name);
    assert.equal(canAssignRole(owner, 'ops', '', true), true);
    assert.equal(canAssignRole(owner, 'ops', ORG_A, true), true);
  });

  it('user-admin assigns only member and organization-member', () => {
    const ua = subject(['user-admin']);
    assert.equal(canAssignRole(ua, 'member', '', false), true);
    assert.equal(canAssignRole(ua, 'organization-member', ORG_A, false), true);
    assert.equal(canAssignRole(ua, 'auditor', '', false), false);
    assert.equal(canAssignRole(ua, 'organization-admin', ORG_A, false), false);
    assert.equal(canAssignRole(ua, 'ops', ORG_A, true), false);
  });

  it('organization-admin assigns org roles and custom org roles of its own org only', () => {
    const oa = subject([], { [ORG_A]: ['organization-admin'], [ORG_B]: [] });
    assert.equal(canAssignRole(oa, 'organization-admin', ORG_A, false), true);
    assert.equal(canAssignRole(oa, 'organization-workspace-creation-ban', ORG_A, false), true);
    assert.equal(canAssignRole(oa, 'ops', ORG_A, true), true);
    assert.equal(canAssignRole(oa, 'organization-admin', ORG_B, false), false);
    assert.equal(canAssignRole(oa, 'ops', ORG_B, true), false);
    assert.equal(canAssignRole(oa, 'auditor', '', false), false);
    assert.equal(canAssignRole(oa, 'ops', '', true), false);
  });

  it('organization-user-admin assigns organization-member in its org only', () => {
    const oua = subject([], { [ORG_A]: ['organization-user-admin'] });
    assert.equal(canAssignRole(oua, 'organization-member', ORG_A, false), true);
    assert.equal(canAssignRole(oua, 'organization-auditor', ORG_A, false), false);
    assert.equal(canAssignRole(oua, 'organization-member', ORG_B, false), false);
  });

  it('everyone else assigns nothing; a system actor assigns anything; scope must fit the name', () => {
    const plain = subject(['auditor', 'template-admin'], { [ORG_A]: ['organization-template-admin'] });
    assert.equal(canAssignRole(plain, 'member', '', false), false);
    assert.equal(canAssignRole(plain, 'organization-member', ORG_A, false), false);
    assert.equal(canAssignRole(systemSubject('bootstrap'), 'owner', '', false), true);
    assert.equal(canAssignRole(subject(['owner']), 'organization-admin', '', false), false);
    assert.equal(canAssignRole(subject(['owner']), 'auditor', ORG_A, false), false);
    assert.equal(canAssignRole(subject(['owner']), 'not-a-role', '', false), false);
  });
});
