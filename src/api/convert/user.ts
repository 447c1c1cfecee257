import { builtInSiteRole } from '../../rbac/index.js';
import { parseStringArray } from '../../store/json-column.js';
import type { UserRow } from '../../store/rows.js';
import type { User, UserStatus } from '../../sdk/wire/index.js';

/**
 * A user row as the API shows it; `organizationIds` come from the user's memberships. An empty name,
 * avatar or theme is left out, and a site role names no organization, as the reference's server
 * sends them (`omitempty`).
 */
export function toWireUser(row: UserRow, organizationIds: readonly string[]): User {
  return {
    id: row.id,
    username: row.username,
    name: row.name || undefined,
    email: row.email,
    avatar_url: row.avatar_url || undefined,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_seen_at: row.last_seen_at,
    status: row.status as UserStatus,
    login_type: row.login_type,
    theme_preference: row.theme_preference || undefined,
    organization_ids: [...organizationIds],
    roles: parseStringArray(row.rbac_roles).map((name) => ({
      name,
      display_name: builtInSiteRole(name)?.display_name ?? name,
    })),
  };
}

/** A page of users as the API shows it; `organizationIds` maps each user to their organizations. */
export function toWireUsers(rows: readonly UserRow[], organizationIds: ReadonlyMap<string, readonly string[]>): User[] {
  return rows.map((row) => toWireUser(row, organizationIds.get(row.id) ?? []));
}
