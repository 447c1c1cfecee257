/**
 * The static "who may grant which role" table. It is checked in addition to the actor's
 * `assign`/`unassign` permission on `assign_role` / `assign_org_role`, never instead of it. The
 * same table ranks users: nobody acts on a user holding a role they could not assign.
 */
import { MEMBER_ROLE, ORG_MEMBER_ROLE, ORG_ROLE_NAMES, SITE_ROLE_NAMES, isOrgRoleName, isSiteRoleName } from './builtin-roles.js';
import type { Subject } from './subject.js';

/** Stand-in name under which any custom site role appears in the table. */
export const CUSTOM_SITE_ROLE = 'custom-site-role';
/** Stand-in name under which any custom organization role appears in the table. */
export const CUSTOM_ORG_ROLE = 'custom-organization-role';

const ORG_ADMIN_MAY_ASSIGN: ReadonlySet<string> = new Set([...ORG_ROLE_NAMES, CUSTOM_ORG_ROLE]);
const OWNER_MAY_ASSIGN: ReadonlySet<string> = new Set([...SITE_ROLE_NAMES, ...ORG_ROLE_NAMES, CUSTOM_SITE_ROLE, CUSTOM_ORG_ROLE]);

/** Site-scoped actor roles: they count for roles of any scope. */
const SITE_TABLE: Readonly<Record<string, ReadonlySet<string>>> = {
  owner: OWNER_MAY_ASSIGN,
  'user-admin': new Set(['member', 'organization-member']),
};

/** Org-scoped actor roles: they count only for roles of the same organization. */
const ORG_TABLE: Readonly<Record<string, ReadonlySet<string>>> = {
  'organization-admin': ORG_ADMIN_MAY_ASSIGN,
  'organization-user-admin': new Set(['organization-member']),
};

/** The table key of the role being assigned, or undefined when name and scope do not fit together. */
function targetKey(roleName: string, roleOrgId: string, isCustom: boolean): string | undefined {
  if (isCustom) return roleOrgId === '' ? CUSTOM_SITE_ROLE : CUSTOM_ORG_ROLE;
  if (isSiteRoleName(roleName)) return roleOrgId === '' ? roleName : undefined;
  if (isOrgRoleName(roleName)) return roleOrgId !== '' ? roleName : undefined;
  return undefined;
}

/**
 * Whether `actor` may grant or remove the role `roleName` of scope `roleOrgId` (`''` for a site
 * role) under the static table; `isCustom` says the name is a custom role. Also drives the
 * `assignable` flag of role listings. A built-in name used with the wrong scope is never assignable.
 */
export function canAssignRole(actor: Subject, roleName: string, roleOrgId: string, isCustom: boolean): boolean {
  const key = targetKey(roleName, roleOrgId, isCustom);
  if (key === undefined) return false;
  if (actor.type === 'system') return true;
  for (const role of actor.roles) {
    const table = role.organization_id === '' ? SITE_TABLE : ORG_TABLE;
    if (role.organization_id !== '' && role.organization_id !== roleOrgId) continue;
    if (!Object.hasOwn(table, role.name)) continue;
    if (table[role.name]?.has(key) === true) return true;
  }
  return false;
}

/** Stored roles of a user, as rank weighs them: site roles, and their roles in the organization a change is about. */
export interface HeldRoles {
  readonly site: readonly string[];
  readonly organization?: { readonly id: string; readonly roles: readonly string[] };
}

/**
 * The roles `held` that `actor` could not assign, as stored. Acting on another user needs none:
 * whoever could change the password, keys or roles of a user holding a role they could not grant
 * could sign in as that user and hold it too. The implicit `member` and `organization-member`
 * are everyone's and rank nobody; a custom role is as high as the custom roles of its scope.
 */
export function rolesBeyondReach(actor: Subject, held: HeldRoles): string[] {
  const beyond: string[] = [];
  for (const name of held.site) {
    if (name !== MEMBER_ROLE && !canAssignRole(actor, name, '', !isSiteRoleName(name))) beyond.push(name);
  }
  const organization = held.organization;
  for (const name of organization?.roles ?? []) {
    if (name !== ORG_MEMBER_ROLE && !canAssignRole(actor, name, organization?.id ?? '', !isOrgRoleName(name))) beyond.push(name);
  }
  return [...new Set(beyond)];
}
