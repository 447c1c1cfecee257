import { MEMBER_ROLE, ORG_MEMBER_ROLE, builtInOrgRole, builtInSiteRole } from './builtin-roles.js';
import type { Role } from './role.js';

/**
 * API key scopes. `all` places no restriction; `application_connect` allows nothing but
 * `application_connect` on workspaces (the roles still decide which workspaces).
 */
export type ScopeName = 'all' | 'application_connect';

/** Who is asking: an authenticated user or a named background actor. */
export interface Subject {
  readonly id: string;
  readonly type: 'user' | 'system';
  readonly name?: string;
  /** Fully expanded roles; org roles carry their organization in `organization_id`. */
  readonly roles: readonly Role[];
  /** Ids of the groups the subject belongs to (for group ACLs). */
  readonly groups: readonly string[];
  readonly scope: ScopeName;
}

/** The organizations in which the subject holds any org role, i.e. is a member; no duplicates. */
export function memberOrgIds(subject: Subject): string[] {
  const ids: string[] = [];
  for (const role of subject.roles) {
    if (role.organization_id !== '' && !ids.includes(role.organization_id)) ids.push(role.organization_id);
  }
  return ids;
}

/** The id of every system subject: the nil UUID, so it fits id columns yet never owns a real row. */
export const SYSTEM_SUBJECT_ID = '00000000-0000-0000-0000-000000000000';

/** Input of {@link userSubject}: a user's stored role assignments. */
export interface UserSubjectArgs {
  readonly id: string;
  readonly name?: string;
  /** Stored site role names; `member` is added implicitly. */
  readonly siteRoleNames: readonly string[];
  /** Stored org role names per organization membership; `organization-member` is added implicitly. */
  readonly orgRoles: Readonly<Record<string, readonly string[]>>;
  /** Custom roles, already loaded; matched by name and `organization_id` (`''` for site roles). */
  readonly customRoles?: readonly Role[];
  readonly groups?: readonly string[];
  readonly scope?: ScopeName;
  readonly disableOwnerWorkspaceExec?: boolean;
}

function findCustom(custom: readonly Role[] | undefined, name: string, orgId: string): Role | undefined {
  return custom?.find((role) => role.name === name && role.organization_id === orgId);
}

/**
 * Expands a user's stored roles into a subject: the stored site roles plus the implicit `member`,
 * and for every organization membership the stored org roles plus the implicit
 * `organization-member`. Names that are neither built in nor among `customRoles` for that scope
 * are skipped (a deleted custom role simply expands to nothing); duplicates are dropped.
 */
export function userSubject(args: UserSubjectArgs): Subject {
  const roles: Role[] = [];
  const add = (role: Role | undefined): void => {
    if (role && !roles.some((r) => r.name === role.name && r.organization_id === role.organization_id)) roles.push(role);
  };
  const siteOpts = { disableOwnerWorkspaceExec: args.disableOwnerWorkspaceExec === true };
  for (const name of [MEMBER_ROLE, ...args.siteRoleNames]) {
    add(builtInSiteRole(name, siteOpts) ?? findCustom(args.customRoles, name, ''));
  }
  for (const [orgId, names] of Object.entries(args.orgRoles)) {
    if (orgId === '') continue;
    for (const name of [ORG_MEMBER_ROLE, ...names]) {
      add(builtInOrgRole(name, orgId) ?? findCustom(args.customRoles, name, orgId));
    }
  }
  const subject: Subject = {
    id: args.id,
    type: 'user',
    roles,
    groups: args.groups ?? [],
    scope: args.scope ?? 'all',
    ...(args.name === undefined ? {} : { name: args.name }),
  };
  return Object.freeze(subject);
}
