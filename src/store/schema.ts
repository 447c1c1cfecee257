import type { Generated } from 'kysely';

/**
 * The tables as kysely sees them. Both dialects store the same shapes: ids and timestamps as text
 * (UUIDs and ISO 8601 in UTC, which sort correctly as text), booleans as 0/1 integers and JSON as
 * text, so one set of queries serves SQLite and PostgreSQL.
 */
export interface Database {
  cove_migrations: MigrationTable;
  site_config: SiteConfigTable;
  organizations: OrganizationTable;
  users: UserTable;
  organization_members: OrganizationMemberTable;
  api_keys: ApiKeyTable;
  custom_roles: CustomRoleTable;
}

export interface MigrationTable {
  version: number;
  name: string;
  applied_at: string;
}

export interface SiteConfigTable {
  key: string;
  value: string;
}

export interface OrganizationTable {
  id: string;
  name: string;
  display_name: string;
  description: string;
  icon: string;
  is_default: number;
  created_at: string;
  updated_at: string;
}

export interface UserTable {
  id: string;
  email: string;
  username: string;
  name: string;
  avatar_url: string;
  hashed_password: string;
  login_type: string;
  status: string;
  /** JSON array of stored site role names; the implicit `member` is never stored. */
  rbac_roles: string;
  theme_preference: string;
  hashed_one_time_passcode: string | null;
  one_time_passcode_expires_at: string | null;
  deleted: number;
  created_at: string;
  updated_at: string;
  last_seen_at: string;
}

export interface OrganizationMemberTable {
  user_id: string;
  organization_id: string;
  /** JSON array of stored organization role names; the implicit `organization-member` is never stored. */
  roles: string;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyTable {
  id: string;
  /** Hex SHA-256 of the secret half of the token. */
  hashed_secret: string;
  user_id: string;
  login_type: string;
  scope: string;
  token_name: string;
  lifetime_seconds: number;
  expires_at: string;
  last_used: string;
  ip_address: string;
  created_at: string;
  updated_at: string;
}

export interface CustomRoleTable {
  name: string;
  organization_id: string;
  display_name: string;
  site_permissions: string;
  org_permissions: string;
  user_permissions: string;
  created_at: string;
  updated_at: string;
}

export type Insertable<T> = { [K in keyof T]: T[K] extends Generated<infer U> ? U | undefined : T[K] };
