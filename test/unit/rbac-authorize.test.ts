import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  allow,
  anyOrgObject,
  apiKeyObject,
  authorize,
  deny,
  orgMemberObject,
  orgScoped,
  organizationObject,
  siteObject,
  userObject,
  userSubject,
  type RbacObject,
  type Role,
  type Subject,
} from '../../src/rbac/index.js';
import { systemSubject } from '../helpers/wildcard-subject.js';

const ORG_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const ORG_B = 'bbbbbbbb-0000-4000-8000-000000000002';
const ALICE = '11111111-0000-4000-8000-000000000001';
const BOB = '22222222-0000-4000-8000-000000000002';

function user(
  siteRoleNames: string[],
  orgRoles: Record<string, string[]>,
  extra: Partial<Parameters<typeof userSubject>[0]> = {},
): Subject {
  return userSubject({ id: ALICE, siteRoleNames, orgRoles, ...extra });
}

const workspace = (owner: string, org: string): RbacObject => orgScoped('workspace', org, owner);

describe('authorize: plain members', () => {
  const member = user([], { [ORG_A]: [] });

  it('reads and builds their own workspace in an org they belong to', () => {
    for (const action of ['read', 'update', 'start', 'stop', 'ssh', 'application_connect', 'create', 'delete'] as const) {
      assert.equal(authorize(member, action, workspace(ALICE, ORG_A)), true, action);
    }
  });

  it("cannot read another member's workspace", () => {
    assert.equal(authorize(member, 'read', workspace(BOB, ORG_A)), false);
  });

  it('cannot use their own workspace in an org they do not belong to (org ok rule)', () => {
    assert.equal(authorize(member, 'read', workspace(ALICE, ORG_B)), false);
  });

  it('reads and personally updates themselves but cannot update or delete their account', () => {
    assert.equal(authorize(member, 'read', userObject(ALICE)), true);
    assert.equal(authorize(member, 'read_personal', userObject(ALICE)), true);
    assert.equal(authorize(member, 'update_personal', userObject(ALICE)), true);
    assert.equal(authorize(member, 'update', userObject(ALICE)), false);
    assert.equal(authorize(member, 'delete', userObject(ALICE)), false);
    assert.equal(authorize(member, 'read', userObject(BOB)), false);
  });

  it('manages their own API keys only', () => {
    assert.equal(authorize(member, 'delete', apiKeyObject(ALICE)), true);
    assert.equal(authorize(member, 'read', apiKeyObject(BOB)), false);
  });

  it('reads its own org membership but not another member’s, and reads only its own org', () => {
    assert.equal(authorize(member, 'read', orgMemberObject(ALICE, ORG_A)), true);
    assert.equal(authorize(member, 'update', orgMemberObject(ALICE, ORG_A)), false);
    assert.equal(authorize(member, 'read', orgMemberObject(BOB, ORG_A)), false);
    assert.equal(authorize(member, 'read', organizationObject(ORG_A)), true);
    assert.equal(authorize(member, 'read', organizationObject(ORG_B)), false);
  });

  it('reads site role listings (assign_role) but cannot assign', () => {
    assert.equal(authorize(member, 'read', siteObject('assign_role')), true);
    assert.equal(authorize(member, 'assign', siteObject('assign_role')), false);
    assert.equal(authorize(member, 'read', orgScoped('assign_org_role', ORG_A)), true);
    assert.equal(authorize(member, 'read', orgScoped('assign_org_role', ORG_B)), false);
  });

  it('reads the org provisioner daemons (spec-era organization-member) but not the deployment config', () => {
    assert.equal(authorize(member, 'read', orgScoped('provisioner_daemon', ORG_A)), true);
    assert.equal(authorize(member, 'update', orgScoped('provisioner_daemon', ORG_A)), false);
    assert.equal(authorize(member, 'read', siteObject('deployment_config')), false);
  });

  it('cannot start a dormant workspace or touch prebuilt workspaces even when they own them', () => {
    assert.equal(authorize(member, 'read', orgScoped('workspace_dormant', ORG_A, ALICE)), true);
    assert.equal(authorize(member, 'start', orgScoped('workspace_dormant', ORG_A, ALICE)), false);
    assert.equal(authorize(member, 'ssh', orgScoped('workspace_dormant', ORG_A, ALICE)), false);
    assert.equal(authorize(member, 'delete', orgScoped('prebuilt_workspace', ORG_A, ALICE)), false);
  });

  it('a user with no membership at all is still a member of the site', () => {
    const loner = user([], {});
    assert.equal(authorize(loner, 'read', userObject(ALICE)), true);
    assert.equal(authorize(loner, 'read', workspace(ALICE, ORG_A)), false);
  });
});

describe('authorize: site roles', () => {
  it('owner may do anything, except dormant start and prebuilt read', () => {
    const owner = user(['owner'], {});
    assert.equal(authorize(owner, 'ssh', workspace(BOB, ORG_B)), true);
    assert.equal(authorize(owner, 'update', siteObject('deployment_config')), true);
    assert.equal(authorize(owner, 'assign', siteObject('assign_role')), true);
    assert.equal(authorize(owner, 'delete', userObject(BOB)), true);
    assert.equal(authorize(owner, 'stop', orgScoped('workspace_dormant', ORG_B, BOB)), true);
    assert.equal(authorize(owner, 'start', orgScoped('workspace_dormant', ORG_B, BOB)), false);
    assert.equal(authorize(owner, 'update', orgScoped('prebuilt_workspace', ORG_B)), true);
    assert.equal(authorize(owner, 'read', orgScoped('prebuilt_workspace', ORG_B)), false);
  });

  it('disable_owner_workspace_exec takes ssh and app connect from owners, own workspaces too, keeps the rest', () => {
    const owner = user(['owner'], { [ORG_A]: [] }, { disableOwnerWorkspaceExec: true });
    assert.equal(authorize(owner, 'ssh', workspace(BOB, ORG_A)), false);
    assert.equal(authorize(owner, 'application_connect', workspace(BOB, ORG_A)), false);
    assert.equal(authorize(owner, 'update', workspace(BOB, ORG_A)), true);
    // Their member wildcard still covers their own workspace.
    assert.equal(authorize(owner, 'ssh', workspace(ALICE, ORG_A)), true);
  });

  it('auditor can read deployment_config and audit logs but not update the config', () => {
    const auditor = user(['auditor'], {});
    assert.equal(authorize(auditor, 'read', siteObject('deployment_config')), true);
    assert.equal(authorize(auditor, 'update', siteObject('deployment_config')), false);
    assert.equal(authorize(auditor, 'read', siteObject('audit_log')), true);
    assert.equal(authorize(auditor, 'read', workspace(BOB, ORG_A)), false);
  });

  it('template-admin manages templates in every org and reads all workspaces', () => {
    const ta = user(['template-admin'], {});
    assert.equal(authorize(ta, 'create', orgScoped('template', ORG_B)), true);
    assert.equal(authorize(ta, 'read', workspace(BOB, ORG_B)), true);
    assert.equal(authorize(ta, 'update', workspace(BOB, ORG_B)), false);
  });

  it('user-admin manages users and org members but not the deployment', () => {
    const ua = user(['user-admin'], {});
    assert.equal(authorize(ua, 'update', userObject(BOB)), true);
    assert.equal(authorize(ua, 'create', siteObject('user')), true);
    assert.equal(authorize(ua, 'delete', orgMemberObject(BOB, ORG_B)), true);
    assert.equal(authorize(ua, 'assign', siteObject('assign_role')), true);
    assert.equal(authorize(ua, 'read', siteObject('deployment_config')), false);
  });

  it('a system subject may do anything', () => {
    const sys = systemSubject('autobuild');
    assert.equal(sys.type, 'system');
    assert.equal(authorize(sys, 'start', workspace(BOB, ORG_B)), true);
    assert.equal(authorize(sys, 'update', siteObject('deployment_config')), true);
  });
});

describe('authorize: organization roles', () => {
  it('organization-admin manages its org but cannot ssh into members’ workspaces or assign site roles', () => {
    const admin = user([], { [ORG_A]: ['organization-admin'] });
    assert.equal(authorize(admin, 'read', workspace(BOB, ORG_A)), true);
    assert.equal(authorize(admin, 'stop', workspace(BOB, ORG_A)), true);
    assert.equal(authorize(admin, 'ssh', workspace(BOB, ORG_A)), false);
    assert.equal(authorize(admin, 'application_connect', workspace(BOB, ORG_A)), false);
    assert.equal(authorize(admin, 'ssh', workspace(ALICE, ORG_A)), true);
    assert.equal(authorize(admin, 'read', orgMemberObject(BOB, ORG_A)), true);
    assert.equal(authorize(admin, 'create', orgScoped('template', ORG_A)), true);
    assert.equal(authorize(admin, 'read', userObject(BOB)), true);
    assert.equal(authorize(admin, 'update', userObject(BOB)), false);
    assert.equal(authorize(admin, 'assign', siteObject('assign_role')), false);
    assert.equal(authorize(admin, 'assign', orgScoped('assign_org_role', ORG_A)), true);
    // Nothing in another org.
    assert.equal(authorize(admin, 'read', workspace(BOB, ORG_B)), false);
    assert.equal(authorize(admin, 'assign', orgScoped('assign_org_role', ORG_B)), false);
  });

  it('organization-workspace-creation-ban blocks create for a member and for an org admin, but owner wins', () => {
    const banned = user([], { [ORG_A]: ['organization-workspace-creation-ban'], [ORG_B]: [] });
    assert.equal(authorize(banned, 'create', workspace(ALICE, ORG_A)), false);
    assert.equal(authorize(banned, 'delete', workspace(ALICE, ORG_A)), false);
    assert.equal(authorize(banned, 'read', workspace(ALICE, ORG_A)), true);
    assert.equal(authorize(banned, 'start', workspace(ALICE, ORG_A)), true);
    assert.equal(authorize(banned, 'create', workspace(ALICE, ORG_B)), true);

    const bannedAdmin = user([], { [ORG_A]: ['organization-admin', 'organization-workspace-creation-ban'] });
    assert.equal(authorize(bannedAdmin, 'create', workspace(BOB, ORG_A)), false);
    assert.equal(authorize(bannedAdmin, 'create', workspace(ALICE, ORG_A)), false);
    assert.equal(authorize(bannedAdmin, 'update', workspace(BOB, ORG_A)), true);

    const bannedOwner = user(['owner'], { [ORG_A]: ['organization-workspace-creation-ban'] });
    assert.equal(authorize(bannedOwner, 'create', workspace(ALICE, ORG_A)), true);
  });

  it('organization-auditor reads its org’s audit log and templates only', () => {
    const auditor = user([], { [ORG_A]: ['organization-auditor'] });
    assert.equal(authorize(auditor, 'read', orgScoped('audit_log', ORG_A)), true);
    assert.equal(authorize(auditor, 'view_insights', orgScoped('template', ORG_A)), true);
    assert.equal(authorize(auditor, 'update', orgScoped('template', ORG_A)), false);
    assert.equal(authorize(auditor, 'read', orgScoped('audit_log', ORG_B)), false);
    assert.equal(authorize(auditor, 'read', siteObject('audit_log')), false);
  });

  it('organization-user-admin manages memberships and groups of its org', () => {
    const oua = user([], { [ORG_A]: ['organization-user-admin'] });
    assert.equal(authorize(oua, 'update', orgMemberObject(BOB, ORG_A)), true);
    assert.equal(authorize(oua, 'create', orgScoped('group', ORG_A)), true);
    assert.equal(authorize(oua, 'assign', orgScoped('assign_org_role', ORG_A)), true);
    assert.equal(authorize(oua, 'create', orgScoped('assign_org_role', ORG_A)), false);
    assert.equal(authorize(oua, 'read', userObject(BOB)), true);
    assert.equal(authorize(oua, 'update', orgMemberObject(BOB, ORG_B)), false);
  });

  it('organization-template-admin manages its org’s templates and provisioner jobs', () => {
    const ota = user([], { [ORG_A]: ['organization-template-admin'] });
    assert.equal(authorize(ota, 'create', orgScoped('template', ORG_A)), true);
    assert.equal(authorize(ota, 'update', orgScoped('provisioner_jobs', ORG_A)), true);
    assert.equal(authorize(ota, 'read', workspace(BOB, ORG_A)), true);
    assert.equal(authorize(ota, 'create', orgScoped('template', ORG_B)), false);
  });
});

describe('authorize: any_org', () => {
  it('lets an org template admin create a template in some org', () => {
    const ota = user([], { [ORG_B]: [], [ORG_A]: ['organization-template-admin'] });
    assert.equal(authorize(ota, 'create', anyOrgObject('template')), true);
  });

  it('is false for a plain member and for someone in no org', () => {
    assert.equal(authorize(user([], { [ORG_A]: [] }), 'create', anyOrgObject('template')), false);
    assert.equal(authorize(user([], {}), 'read', anyOrgObject('organization')), false);
    assert.equal(authorize(user([], { [ORG_A]: [] }), 'read', anyOrgObject('organization')), true);
  });

  it('honours site roles', () => {
    assert.equal(authorize(user(['template-admin'], {}), 'create', anyOrgObject('template')), true);
  });

  it('uses user-level grants when some member org does not deny', () => {
    const banned = user([], { [ORG_A]: ['organization-workspace-creation-ban'] });
    const mine = { type: 'workspace', owner_id: ALICE, any_org: true } as const;
    assert.equal(authorize(banned, 'create', mine), false);
    const bannedInOne = user([], { [ORG_A]: ['organization-workspace-creation-ban'], [ORG_B]: [] });
    assert.equal(authorize(bannedInOne, 'create', mine), true);
  });

  it('combined with an org id it is always a deny, even for an owner', () => {
    const owner = user(['owner'], { [ORG_A]: [] });
    assert.equal(authorize(owner, 'read', { type: 'template', any_org: true, org_id: ORG_A }), false);
  });
});

describe('authorize: API key scope', () => {
  const member = user([], { [ORG_A]: [] }, { scope: 'application_connect' });

  it('application_connect scope forbids reading the user, even oneself', () => {
    assert.equal(authorize(member, 'read', userObject(ALICE)), false);
    assert.equal(authorize(member, 'read', workspace(ALICE, ORG_A)), false);
  });

  it('allows application_connect on workspaces the roles allow, and only those', () => {
    assert.equal(authorize(member, 'application_connect', workspace(ALICE, ORG_A)), true);
    assert.equal(authorize(member, 'application_connect', workspace(BOB, ORG_A)), false);
  });

  it('also limits what an ACL grants', () => {
    const shared: RbacObject = { ...workspace(BOB, ORG_A), acl_user_list: { [ALICE]: ['*'] } };
    assert.equal(authorize(member, 'read', shared), false);
    assert.equal(authorize(member, 'application_connect', shared), true);
  });
});

describe('authorize: ACLs', () => {
  const GROUP = 'cccccccc-0000-4000-8000-000000000003';
  const template = (groups: Record<string, string[]>, users: Record<string, string[]> = {}): RbacObject => ({
    ...orgScoped('template', ORG_A),
    acl_group_list: groups,
    acl_user_list: users,
  });

  it('the Everyone group (keyed by org id) reaches members of that org only', () => {
    const tpl = template({ [ORG_A]: ['read', 'use'] });
    assert.equal(authorize(user([], { [ORG_A]: [] }), 'use', tpl), true);
    assert.equal(authorize(user([], { [ORG_A]: [] }), 'update', tpl), false);
    assert.equal(authorize(user([], { [ORG_B]: [] }), 'read', tpl), false);
  });

  it('a group entry reaches the group’s members if they are in the org', () => {
    const tpl = template({ [GROUP]: ['update'] });
    assert.equal(authorize(user([], { [ORG_A]: [] }, { groups: [GROUP] }), 'update', tpl), true);
    assert.equal(authorize(user([], { [ORG_A]: [] }), 'update', tpl), false);
    assert.equal(authorize(user([], { [ORG_B]: [] }, { groups: [GROUP] }), 'update', tpl), false);
  });

  it('a user entry grants its actions, and `*` grants all', () => {
    const shared: RbacObject = { ...workspace(BOB, ORG_A), acl_user_list: { [ALICE]: ['read'] } };
    assert.equal(authorize(user([], { [ORG_A]: [] }), 'read', shared), true);
    assert.equal(authorize(user([], { [ORG_A]: [] }), 'ssh', shared), false);
    const all: RbacObject = { ...workspace(BOB, ORG_A), acl_user_list: { [ALICE]: ['*'] } };
    assert.equal(authorize(user([], { [ORG_A]: [] }), 'ssh', all), true);
  });

  it('ignores inherited object keys', () => {
    const tpl: RbacObject = { ...orgScoped('template', ORG_A), acl_user_list: {} };
    assert.equal(authorize(userSubject({ id: 'constructor', siteRoleNames: [], orgRoles: {} }), 'read', tpl), false);
  });
});

describe('authorize: negative permissions', () => {
  const custom = (name: string, org: string, parts: Partial<Pick<Role, 'site' | 'org' | 'user'>>): Role => ({
    name,
    display_name: name,
    organization_id: org,
    site: [],
    org: [],
    user: [],
    ...parts,
  });

  it('a negative site permission beats an owner’s positive one at the same level', () => {
    const noAudit = custom('no-audit', '', { site: deny('audit_log', ['read']) });
    const s = user(['owner', 'no-audit'], {}, { customRoles: [noAudit] });
    assert.equal(authorize(s, 'read', siteObject('audit_log')), false);
    assert.equal(authorize(s, 'read', siteObject('deployment_config')), true);
  });

  it('a negative site permission blocks org and user grants below it', () => {
    const noWs = custom('no-workspaces', '', { site: deny('workspace', ['*']) });
    const s = user(['no-workspaces'], { [ORG_A]: ['organization-admin'] }, { customRoles: [noWs] });
    assert.equal(authorize(s, 'read', workspace(ALICE, ORG_A)), false);
    assert.equal(authorize(s, 'read', workspace(BOB, ORG_A)), false);
  });

  it('a negative org permission blocks user-level grants in that org only', () => {
    const noKeys = custom('no-ws-read', ORG_A, { org: deny('workspace', ['read']) });
    const s = user([], { [ORG_A]: ['no-ws-read'], [ORG_B]: [] }, { customRoles: [noKeys] });
    assert.equal(authorize(s, 'read', workspace(ALICE, ORG_A)), false);
    assert.equal(authorize(s, 'update', workspace(ALICE, ORG_A)), true);
    assert.equal(authorize(s, 'read', workspace(ALICE, ORG_B)), true);
  });

  it('a custom org role’s grants apply only in its org', () => {
    const reader = custom('ws-reader', ORG_A, { org: allow('workspace', ['read']) });
    const s = user([], { [ORG_A]: ['ws-reader'], [ORG_B]: ['ws-reader'] }, { customRoles: [reader] });
    assert.equal(authorize(s, 'read', workspace(BOB, ORG_A)), true);
    assert.equal(authorize(s, 'read', workspace(BOB, ORG_B)), false);
  });
});
