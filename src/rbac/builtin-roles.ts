/**
 * The built-in roles and their permissions, as the reference system shipped them in the spec's
 * era (mid-2025): own workspaces come from the member's user-level wildcard, and
 * `organization-member` can read the org's provisioner daemons.
 */
import { RESOURCE_ACTIONS, RESOURCE_TYPES, type Action, type ResourceType } from './policy.js';
import { allow, deny, type Permission, type Role } from './role.js';

/** Built-in site-wide roles. `member` is implicit for every user and never stored. */
export const SITE_ROLE_NAMES = ['owner', 'member', 'template-admin', 'user-admin', 'auditor'] as const;

/** Built-in organization roles. `organization-member` is implicit for every membership. */
export const ORG_ROLE_NAMES = [
  'organization-admin',
  'organization-member',
  'organization-auditor',
  'organization-user-admin',
  'organization-template-admin',
  'organization-workspace-creation-ban',
] as const;

/** One of {@link SITE_ROLE_NAMES}. */
export type SiteRoleName = (typeof SITE_ROLE_NAMES)[number];
/** One of {@link ORG_ROLE_NAMES}. */
export type OrgRoleName = (typeof ORG_ROLE_NAMES)[number];

/** The implicit site role of every user. */
export const MEMBER_ROLE = 'member';
/** The implicit org role of every organization membership. */
export const ORG_MEMBER_ROLE = 'organization-member';

const DISPLAY_NAMES: Readonly<Record<SiteRoleName | OrgRoleName, string>> = {
  owner: 'Owner',
  member: 'Member',
  'template-admin': 'Template Admin',
  'user-admin': 'User Admin',
  auditor: 'Auditor',
  'organization-admin': 'Organization Admin',
  // Empty on purpose: role listings hide roles without a display name.
  'organization-member': '',
  'organization-auditor': 'Organization Auditor',
  'organization-user-admin': 'Organization User Admin',
  'organization-template-admin': 'Organization Template Admin',
  'organization-workspace-creation-ban': 'Organization Workspace Creation Ban',
};

const NONE: readonly Permission[] = Object.freeze([]);

/** Dormant workspaces may be inspected and cleaned up, but never built, started or entered. */
const DORMANT_ACTIONS: readonly Action[] = ['read', 'delete', 'create', 'update', 'stop', 'create_agent', 'delete_agent'];
const EXEC_ACTIONS: ReadonlySet<Action> = new Set(['ssh', 'application_connect']);
const WORKSPACE_NO_EXEC: readonly Action[] = RESOURCE_ACTIONS.workspace.filter((a) => !EXEC_ACTIONS.has(a));

/**
 * `*` on every resource type except `excluded`. Expanded per type rather than a `*` type so that
 * the explicit, narrower lists given for the excluded types are the whole grant for them.
 */
function wildcardExcept(...excluded: ResourceType[]): Permission[] {
  return RESOURCE_TYPES.filter((type) => !excluded.includes(type)).flatMap((type) => allow(type, ['*']));
}

function freeze(perms: Permission[]): readonly Permission[] {
  for (const p of perms) Object.freeze(p);
  return Object.freeze(perms);
}

function list(...groups: Permission[][]): readonly Permission[] {
  return freeze(groups.flat());
}

function ownerSite(workspaceActions: readonly Action[]): readonly Permission[] {
  return list(
    wildcardExcept('workspace', 'workspace_dormant', 'prebuilt_workspace'),
    allow('workspace', workspaceActions),
    allow('workspace_dormant', DORMANT_ACTIONS),
    allow('prebuilt_workspace', ['update', 'delete']),
  );
}

function siteRole(name: SiteRoleName, site: readonly Permission[], user: readonly Permission[] = NONE): Role {
  return Object.freeze({ name, display_name: DISPLAY_NAMES[name], organization_id: '', site, org: NONE, user });
}

const OWNER = siteRole('owner', ownerSite(RESOURCE_ACTIONS.workspace));
const OWNER_NO_EXEC = siteRole('owner', ownerSite(WORKSPACE_NO_EXEC));

const SITE_ROLES: Readonly<Record<Exclude<SiteRoleName, 'owner'>, Role>> = {
  member: siteRole(
    'member',
    list(allow('assign_role', ['read']), allow('oauth2_app', ['read']), allow('workspace_proxy', ['read'])),
    list(
      wildcardExcept('workspace_dormant', 'prebuilt_workspace', 'user', 'organization_member'),
      allow('workspace_dormant', DORMANT_ACTIONS),
      // Users cannot create, update or delete themselves; admins do that.
      allow('user', ['read', 'read_personal', 'update_personal']),
      allow('provisioner_daemon', ['read', 'create', 'update']),
    ),
  ),
  auditor: siteRole(
    'auditor',
    list(
      allow('audit_log', ['read']),
      allow('template', ['read', 'view_insights']),
      allow('user', ['read']),
      allow('group', ['read']),
      allow('group_member', ['read']),
      allow('organization', ['read']),
      allow('organization_member', ['read']),
      allow('assign_org_role', ['read']),
      allow('deployment_stats', ['read']),
      allow('deployment_config', ['read']),
    ),
  ),
  'template-admin': siteRole(
    'template-admin',
    list(
      allow('template', ['*']),
      allow('file', ['create', 'read']),
      allow('workspace', ['read']),
      allow('workspace_dormant', ['read']),
      allow('prebuilt_workspace', ['update', 'delete']),
      allow('provisioner_daemon', ['create', 'read', 'update', 'delete']),
      allow('provisioner_jobs', ['read']),
      allow('user', ['read']),
      allow('group', ['read']),
      allow('group_member', ['read']),
      allow('organization', ['read']),
      allow('organization_member', ['read']),
      allow('assign_org_role', ['read']),
    ),
  ),
  'user-admin': siteRole(
    'user-admin',
    list(
      allow('assign_role', ['assign', 'unassign', 'read']),
      allow('assign_org_role', ['assign', 'unassign', 'read']),
      allow('user', ['create', 'read', 'update', 'delete', 'read_personal', 'update_personal']),
      allow('group', ['create', 'read', 'update', 'delete']),
      allow('group_member', ['read']),
      allow('organization', ['read']),
      allow('organization_member', ['create', 'read', 'update', 'delete']),
      allow('idpsync_settings', ['read', 'update']),
    ),
  ),
};

/** Site, org and user lists of an org role; the org id is filled in per call. */
interface OrgRoleShape {
  readonly site: readonly Permission[];
  readonly org: readonly Permission[];
  readonly user: readonly Permission[];
}

// Shared across organizations so that compiled lookups (cached by list identity) are reused.
const ORG_ROLES: Readonly<Record<OrgRoleName, OrgRoleShape>> = {
  'organization-admin': {
    site: list(allow('user', ['read'])),
    org: list(
      // Site-role assignment is never org-scoped, so assign_role stays out of the wildcard.
      wildcardExcept('workspace', 'workspace_dormant', 'prebuilt_workspace', 'assign_role'),
      allow('workspace', WORKSPACE_NO_EXEC),
      allow('workspace_dormant', DORMANT_ACTIONS),
      allow('prebuilt_workspace', ['update', 'delete']),
    ),
    user: NONE,
  },
  'organization-member': {
    site: NONE,
    org: list(allow('organization', ['read']), allow('assign_org_role', ['read']), allow('provisioner_daemon', ['read'])),
    user: list(allow('organization_member', ['read'])),
  },
  'organization-auditor': {
    site: NONE,
    org: list(
      allow('audit_log', ['read']),
      allow('template', ['read', 'view_insights']),
      allow('group', ['read']),
      allow('group_member', ['read']),
      allow('organization', ['read']),
      allow('organization_member', ['read']),
    ),
    user: NONE,
  },
  'organization-user-admin': {
    site: list(allow('user', ['read'])),
    org: list(
      allow('assign_org_role', ['assign', 'unassign', 'read']),
      allow('organization', ['read']),
      allow('organization_member', ['create', 'read', 'update', 'delete']),
      allow('group', ['*']),
      allow('group_member', ['*']),
      allow('idpsync_settings', ['read', 'update']),
    ),
    user: NONE,
  },
  'organization-template-admin': {
    site: NONE,
    org: list(
      allow('template', ['*']),
      allow('file', ['create', 'read']),
      allow('workspace', ['read']),
      allow('workspace_dormant', ['read']),
      allow('prebuilt_workspace', ['update', 'delete']),
      allow('organization', ['read']),
      allow('organization_member', ['read']),
      allow('group', ['read']),
      allow('group_member', ['read']),
      allow('provisioner_daemon', ['create', 'read', 'update', 'delete']),
      allow('provisioner_jobs', ['read', 'update', 'create']),
    ),
    user: NONE,
  },
  'organization-workspace-creation-ban': {
    site: NONE,
    // Negative at the org level: outranks the member's user-level wildcard on own workspaces.
    org: list(deny('workspace', ['create', 'delete', 'create_agent', 'delete_agent'])),
    user: NONE,
  },
};

const SITE_NAME_SET: ReadonlySet<string> = new Set(SITE_ROLE_NAMES);
const ORG_NAME_SET: ReadonlySet<string> = new Set(ORG_ROLE_NAMES);

/** True for a built-in site role name. */
export function isSiteRoleName(name: string): name is SiteRoleName {
  return SITE_NAME_SET.has(name);
}

/** True for a built-in organization role name. */
export function isOrgRoleName(name: string): name is OrgRoleName {
  return ORG_NAME_SET.has(name);
}

/** True for any built-in role name, site or organization; such names are reserved for custom roles. */
export function isBuiltInRoleName(name: string): boolean {
  return SITE_NAME_SET.has(name) || ORG_NAME_SET.has(name);
}

/** Options of {@link builtInSiteRole}. */
export interface SiteRoleOptions {
  /** Deployment option: owners may not ssh into or open apps of workspaces (their own included). */
  readonly disableOwnerWorkspaceExec?: boolean;
}

/** The built-in site role `name`, or `undefined` when `name` is not one. The result is shared and frozen. */
export function builtInSiteRole(name: string, opts?: SiteRoleOptions): Role | undefined {
  if (!isSiteRoleName(name)) return undefined;
  if (name === 'owner') return opts?.disableOwnerWorkspaceExec === true ? OWNER_NO_EXEC : OWNER;
  return SITE_ROLES[name];
}

/** The built-in org role `name` scoped to `orgId`, or `undefined` when `name` is not one. */
export function builtInOrgRole(name: string, orgId: string): Role | undefined {
  if (!isOrgRoleName(name)) return undefined;
  const shape = ORG_ROLES[name];
  return Object.freeze({
    name,
    display_name: DISPLAY_NAMES[name],
    organization_id: orgId,
    site: shape.site,
    org: shape.org,
    user: shape.user,
  });
}
