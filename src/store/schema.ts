import type {
  AuditLogTable,
  ConnectionLogTable,
  NotificationMessageTable,
  NotificationPreferenceTable,
  InboxNotificationTable,
  NotificationTemplateMethodTable,
  NotificationReportRunTable,
} from './schema-logs-and-notifications.js';
export type {
  AuditLogTable,
  ConnectionLogTable,
  NotificationMessageTable,
  NotificationPreferenceTable,
  InboxNotificationTable,
  NotificationTemplateMethodTable,
  NotificationReportRunTable,
} from './schema-logs-and-notifications.js';

import type { Generated } from 'kysely';

/**
 * The tables as kysely sees them. Both dialects store the same shapes: ids and timestamps as text
 * (UUIDs and ISO 8601 in UTC, which sort correctly as text), booleans as 0/1 integers and JSON as
 * text, so one set of queries serves SQLite and PostgreSQL.
 */
export interface Database {
  cove_migrations: MigrationTable;
  site_config: SiteConfigTable;
  user_configs: UserConfigTable;
  organizations: OrganizationTable;
  users: UserTable;
  organization_members: OrganizationMemberTable;
  api_keys: ApiKeyTable;
  custom_roles: CustomRoleTable;
  files: FileTable;
  templates: TemplateTable;
  template_versions: TemplateVersionTable;
  provisioner_jobs: ProvisionerJobTable;
  provisioner_job_logs: ProvisionerJobLogTable;
  workspace_resources: WorkspaceResourceTable;
  provisioner_keys: ProvisionerKeyTable;
  provisioner_daemons: ProvisionerDaemonTable;
  workspaces: WorkspaceTable;
  workspace_builds: WorkspaceBuildTable;
  workspace_agents: WorkspaceAgentTable;
  workspace_port_shares: WorkspacePortShareTable;
  workspace_agent_log_sources: WorkspaceAgentLogSourceTable;
  workspace_agent_logs: WorkspaceAgentLogTable;
  workspace_agent_script_timings: WorkspaceAgentScriptTimingTable;
  workspace_agent_metadata: WorkspaceAgentMetadataTable;
  git_ssh_keys: GitSshKeyTable;
  workspace_app_statuses: WorkspaceAppStatusTable;
  workspace_usage_minutes: WorkspaceUsageMinuteTable;
  user_status_changes: UserStatusChangeTable;
  licenses: LicenseTable;
  health_check_dismissals: HealthCheckDismissalTable;
  user_links: UserLinkTable;
  sign_in_states: SignInStateTable;
  sign_in_failures: SignInFailureTable;
  groups: GroupTable;
  group_members: GroupMemberTable;
  external_auth_links: ExternalAuthLinkTable;
  external_auth_states: ExternalAuthStateTable;
  dbcrypt_keys: DbcryptKeyTable;
  audit_logs: AuditLogTable;
  connection_logs: ConnectionLogTable;
  notification_messages: NotificationMessageTable;
  notification_preferences: NotificationPreferenceTable;
  inbox_notifications: InboxNotificationTable;
  notification_template_methods: NotificationTemplateMethodTable;
  notification_report_runs: NotificationReportRunTable;
}

export interface MigrationTable {
  version: number;
  name: string;
  applied_at: string;
}

/** A health report section an operator dismissed, by its name in `dismissed_healthchecks`. */
export interface HealthCheckDismissalTable {
  section: string;
  dismissed_at: string;
}

export interface SiteConfigTable {
  key: string;
  value: string;
}

/** One setting of one user (terminal font, dismissed alerts). */
export interface UserConfigTable {
  user_id: string;
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
  /** 1 when the organization's workspaces may not be shared (their ACLs are then ignored). */
  workspace_sharing_disabled: number;
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
  /** The user's own daily quiet-hours cron; empty when the deployment default applies. */
  quiet_hours_schedule: Generated<string>;
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

export interface FileTable {
  id: string;
  /** Hex SHA-256 of the stored bytes (after a zip upload was converted to tar). */
  hash: string;
  created_by: string;
  created_at: string;
  mimetype: string;
  size: number;
  data: Buffer;
}

export interface TemplateTable {
  id: string;
  organization_id: string;
  name: string;
  display_name: string;
  description: string;
  icon: string;
  provisioner: string;
  active_version_id: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  deleted: number;
  default_ttl_ms: number;
  activity_bump_ms: number;
  /** Weekday bitmap, Monday = bit 0 … Sunday = bit 6. */
  autostop_requirement_days: number;
  autostop_requirement_weeks: number;
  autostart_requirement_days: number;
  allow_user_autostart: number;
  allow_user_autostop: number;
  allow_user_cancel_workspace_jobs: number;
  failure_ttl_ms: number;
  time_til_dormant_ms: number;
  time_til_dormant_autodelete_ms: number;
  require_active_version: number;
  deprecation_message: string;
  max_port_share_level: string;
  use_classic_parameter_flow: number;
  /** JSON: user id -> actions granted on this template. */
  user_acl: string;
  /** JSON: group id -> actions; the organization's own id stands for everyone in it. */
  group_acl: string;
}

export interface TemplateVersionTable {
  id: string;
  template_id: string | null;
  organization_id: string;
  name: string;
  message: string;
  readme: string;
  job_id: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  archived: number;
  /** JSON arrays of what the import job found. */
  variables: string;
  parameters: string;
  presets: string;
  external_auth: string;
  /** What the template file declares; empty when it declares none. */
  declared_description: Generated<string>;
  declared_icon: Generated<string>;
}

export interface ProvisionerJobTable {
  id: string;
  organization_id: string;
  type: string;
  provisioner: string;
  storage_method: string;
  file_id: string;
  initiator_id: string;
  /** JSON: template_version_id, workspace_build_id, user_variable_values, rich_parameter_values, ... */
  input: string;
  /** JSON object of tag name to value. */
  tags: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  canceled_at: string | null;
  error: string;
  error_code: string;
  worker_id: string | null;
}

export interface ProvisionerJobLogTable {
  id: Generated<number>;
  job_id: string;
  created_at: string;
  source: string;
  level: string;
  stage: string;
  output: string;
}

export interface WorkspaceResourceTable {
  id: string;
  job_id: string;
  transition: string;
  name: string;
  type: string;
  hide: number;
  icon: string;
  daily_cost: number;
  /** JSON array of {key, value, sensitive}. */
  metadata: string;
  /** JSON array of planned agents (import and dry-run jobs). */
  planned_agents: string;
  created_at: string;
}

export interface ProvisionerKeyTable {
  id: string;
  organization_id: string;
  name: string;
  /** Hex SHA-256 of the secret. */
  hashed_secret: string;
  tags: string;
  created_at: string;
}

export interface ProvisionerDaemonTable {
  id: string;
  organization_id: string;
  name: string;
  provisioners: string;
  tags: string;
  key_id: string | null;
  version: string;
  api_version: string;
  created_at: string;
  last_seen_at: string | null;
}

export interface WorkspaceTable {
  id: string;
  organization_id: string;
  owner_id: string;
  template_id: string;
  name: string;
  created_at: string;
  updated_at: string;
  deleted: number;
  autostart_schedule: string | null;
  ttl_ms: number | null;
  last_used_at: string;
  dormant_at: string | null;
  deleting_at: string | null;
  automatic_updates: string;
  favorite: number;
  /** The latest build's status, kept by database triggers (migrations 0012 and 0018) for list filters; null before the first build. */
  latest_build_status: string | null;
  /** JSON object of user id to actions granted by sharing (as templates'). */
  user_acl: string;
  /** JSON object of group id to actions granted by sharing. */
  group_acl: string;
}

export interface WorkspaceBuildTable {
  id: string;
  workspace_id: string;
  template_version_id: string;
  build_number: number;
  transition: string;
  initiator_id: string;
  job_id: string;
  reason: string;
  provisioner_state: Buffer | null;
  deadline: string | null;
  max_deadline: string | null;
  daily_cost: number;
  /** JSON array of {name, value}. */
  rich_parameter_values: string;
  template_version_preset_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface WorkspaceAgentTable {
  id: string;
  resource_id: string;
  name: string;
  auth_token_hash: string;
  /** JSON of the agent as the template declared it (a planned agent without its token). */
  definition: string;
  lifecycle_state: string;
  created_at: string;
  updated_at: string;
  first_connected_at: string | null;
  last_connected_at: string | null;
  disconnected_at: string | null;
  started_at: string | null;
  ready_at: string | null;
  version: Generated<string>;
  expanded_directory: Generated<string>;
  /** JSON array of subsystem names, sorted. */
  subsystems: Generated<string>;
  api_version: Generated<string>;
  /** Bytes of log output stored, against the per-agent limit. */
  logs_length: Generated<number>;
  logs_overflowed: Generated<number>;
  /** JSON object of app id -> health, as the agent last reported. */
  app_health: Generated<string>;
  /** JSON of the latest stats report. */
  last_stats: string | null;
  last_stats_at: string | null;
  /** The cloud instance id the agent may authenticate with; empty when it has none. */
  auth_instance_id: Generated<string>;
  /** The relay URL of the replica holding the agent's rpc socket; empty while it is connected nowhere. */
  relay_url: Generated<string>;
}

export interface WorkspaceAgentLogSourceTable {
  agent_id: string;
  id: string;
  display_name: string;
  icon: string;
  created_at: string;
}

export interface WorkspaceAgentLogTable {
  id: Generated<number>;
  agent_id: string;
  log_source_id: string;
  created_at: string;
  level: string;
  output: string;
}

export interface WorkspaceAgentScriptTimingTable {
  agent_id: string;
  script_id: string;
  stage: string;
  status: string;
  exit_code: number;
  started_at: string;
  ended_at: string;
}

/** The latest result of one metadata item of an agent. */
export interface WorkspaceAgentMetadataTable {
  agent_id: string;
  key: string;
  value: string;
  error: string;
  collected_at: string;
}

export interface GitSshKeyTable {
  user_id: string;
  created_at: string;
  updated_at: string;
  /** OpenSSH PEM; never logged, only handed to the agents of the user's workspaces. */
  private_key: string;
  /** authorized_keys form, with its trailing newline. */
  public_key: string;
}

export interface WorkspaceAppStatusTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  app_id: string;
  /** working | idle | complete | failure */
  state: string;
  message: string;
  uri: string;
  created_at: string;
}

export interface WorkspacePortShareTable {
  workspace_id: string;
  agent_name: string;
  port: number;
  share_level: string;
  protocol: string;
}

/** One minute in which a user used a workspace of a template in one way; see migration 14. */
export interface WorkspaceUsageMinuteTable {
  user_id: string;
  template_id: string;
  /** Minutes since the Unix epoch, UTC. */
  minute: number;
  /** ssh | sftp | reconnecting_pty | vscode | jetbrains | app */
  kind: string;
  /** The app's slug for kind `app`; empty otherwise. */
  app_slug: string;
  app_display_name: string;
  app_icon: string;
  /** The agent's median connection latency reported in that minute; 0 when none was. */
  latency_ms: number;
}

/** A user's status from `changed_at` on (active, dormant, suspended, or deleted). */
export interface UserStatusChangeTable {
  user_id: string;
  changed_at: string;
  new_status: string;
}

/** An uploaded license; see migration 15. */
export interface LicenseTable {
  id: Generated<number>;
  uuid: string;
  /** The signed token as uploaded. */
  jwt: string;
  uploaded_at: string;
  /** The end of its grace period, ISO 8601. */
  exp: string;
}

export type Insertable<T> = { [K in keyof T]: T[K] extends Generated<infer U> ? U | undefined : T[K] };

export interface UserLinkTable {
  user_id: string;
  /** `oidc` or `github`. */
  login_type: string;
  /** The provider's id of the account: issuer and subject for OIDC, the numeric user id for GitHub. */
  linked_id: string;
  created_at: string;
  updated_at: string;
  /** JSON object: the claims of the last OIDC sign-in (`{}` for GitHub). */
  claims: string;
}

export interface SignInStateTable {
  /** Hex SHA-256 of the state the browser carries. */
  state_hash: string;
  provider: string;
  nonce: string;
  code_verifier: string;
  /** Same-origin path the browser goes to once signed in. */
  redirect: string;
  convert_user_id: string | null;
  expires_at: string;
}

export interface SignInFailureTable {
  /** Hex SHA-256 of the kind of secret guessed and the account's normalized email. */
  account: string;
  /** Attempts counted since the last success, or since the count was last forgotten. */
  failures: number;
  /** No attempt for the account is checked before this time. */
  blocked_until: string;
  last_attempt_at: string;
}

/** A group of an organization; the organization's "Everyone" group has the organization's id. */
export interface GroupTable {
  id: string;
  organization_id: string;
  name: string;
  display_name: string;
  avatar_url: string;
  /** Daily cost credits each member may spend; a user's budget sums the allowances of their groups. */
  quota_allowance: number;
  /** `user` or `oidc`. */
  source: string;
  created_at: string;
}

/** A user's membership in a group (never stored for the implicit "Everyone" group). */
export interface GroupMemberTable {
  group_id: string;
  user_id: string;
}

/** A user's link to an external auth provider; the token columns as stored (see token-cipher.ts). */
export interface ExternalAuthLinkTable {
  provider_id: string;
  user_id: string;
  oauth_access_token: string;
  /** Digest of the key that sealed the access token; null when it is stored as is. */
  oauth_access_token_key_id: string | null;
  oauth_refresh_token: string;
  oauth_refresh_token_key_id: string | null;
  /** ISO 8601; null when the access token does not expire. */
  oauth_expiry: string | null;
  /** JSON object of the provider's extra token fields. */
  oauth_extra: string;
  /** Why the link must be made again; empty while it works. */
  validate_error: string;
  created_at: string;
  updated_at: string;
}

/** A link flow under way, tied to the user who started it. */
export interface ExternalAuthStateTable {
  /** Hex SHA-256 of the state the browser carries. */
  state_hash: string;
  provider_id: string;
  user_id: string;
  code_verifier: string;
  redirect: string;
  expires_at: string;
}

/** A key tokens were encrypted with, named by its digest (see migrations/0024-dbcrypt-keys.ts). */
export interface DbcryptKeyTable {
  number: number;
  /** The key's digest while tokens may be sealed with it; null once revoked. */
  active_key_digest: string | null;
  /** The key's digest once revoked; null while active. */
  revoked_key_digest: string | null;
  created_at: string;
  revoked_at: string | null;
  /** A known value sealed with the key. */
  test: string;
}
