import type { Kysely } from 'kysely';
import { userSubject, type Permission, type Role, type ScopeName, type Subject } from '../rbac/index.js';
import { parseJson, parseStringArray } from './json-column.js';
import { listCustomRolesOfOrganizations } from './queries/custom-roles.js';
import { listGroupIdsOfUser } from './queries/groups.js';
import { listMembershipsOfUser } from './queries/members.js';
import type { UserRow } from './queries/users.js';
import type { Database } from './schema.js';

/** Options of the deployment that change what built-in roles grant. */
export interface SubjectOptions {
  readonly disableOwnerWorkspaceExec: boolean;
}

/**
 * Builds the RBAC subject of a user from the database: stored site roles, every membership with
 * its organization roles, the custom roles those memberships name, and the groups the user is in.
 * Read on every request, so role, membership and group changes take effect at once.
 */
export async function loadUserSubject(db: Kysely<Database>, user: UserRow, scope: ScopeName, options: SubjectOptions): Promise<Subject> {
  const [memberships, groups] = await Promise.all([listMembershipsOfUser(db, user.id), listGroupIdsOfUser(db, user.id)]);
  const orgRoles: Record<string, readonly string[]> = {};
  for (const membership of memberships) orgRoles[membership.organization_id] = parseStringArray(membership.roles);
  const needsCustom = memberships.some((m) => parseStringArray(m.roles).some((name) => !name.startsWith('organization-')));
  const customRoles = needsCustom ? await loadCustomRoles(db, Object.keys(orgRoles)) : [];
  return userSubject({
    id: user.id,
    siteRoleNames: parseStringArray(user.rbac_roles),
    orgRoles,
    customRoles,
    groups,
    scope,
    disableOwnerWorkspaceExec: options.disableOwnerWorkspaceExec,
  });
}

/** The custom roles of some organizations, as RBAC roles. */
export async function loadCustomRoles(db: Kysely<Database>, organizationIds: readonly string[]): Promise<Role[]> {
  const rows = await listCustomRolesOfOrganizations(db, organizationIds);
  return rows.map((row) => ({
    name: row.name,
    display_name: row.display_name,
    organization_id: row.organization_id,
    site: parseJson<Permission[]>(row.site_permissions, []),
    org: parseJson<Permission[]>(row.org_permissions, []),
    user: parseJson<Permission[]>(row.user_permissions, []),
  }));
}
