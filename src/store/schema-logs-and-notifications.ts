/**
 * Row shapes of the audit log, the connection log and the notification tables (migrations 25 to
 * 27), apart from schema.ts, which names them in `Database`.
 */
/** One audited request, sign-in or sign-out (see migrations/0025-audit-and-connection-logs.ts). */
export interface AuditLogTable {
  id: string;
  /** ISO 8601. */
  time: string;
  /** Null for an unknown caller and for the system's own work. */
  user_id: string | null;
  /** Empty outside any organization. */
  organization_id: string;
  ip: string;
  user_agent: string;
  /** A wire ResourceType of the audit log (`template`, `workspace_build`, ...). */
  resource_type: string;
  resource_id: string;
  /** The resource's name. */
  resource_target: string;
  resource_icon: string;
  /** A wire AuditAction (`create`, `write`, `delete`, `start`, `stop`, `login`, ...). */
  action: string;
  /** JSON AuditDiff: field -> { old, new, secret }. */
  diff: string;
  status_code: number;
  /** JSON object of strings. */
  additional_fields: string;
  request_id: string;
}

/** One connection to a workspace through the relay, finished when it ends. */
export interface ConnectionLogTable {
  id: string;
  connect_time: string;
  organization_id: string;
  workspace_owner_id: string;
  workspace_id: string;
  workspace_name: string;
  agent_name: string;
  /** A wire ConnectionType. */
  type: string;
  ip: string;
  /** Null for an unauthenticated request to a public app or port. */
  user_id: string | null;
  user_agent: string;
  slug_or_port: string;
  /** HTTP status of a web connection, or a session's exit status; null when there is none (yet). */
  code: number | null;
  connection_id: string;
  /** Null while open. */
  disconnect_time: string | null;
  disconnect_reason: string;
  bytes_to_workspace: number;
  bytes_from_workspace: number;
  /** The replica that relayed it (migration 29); a restarted replica closes what its previous run left open. */
  replica_id: string;
}

/** A message of the notification queue, for one user and one method. */
export interface NotificationMessageTable {
  id: string;
  template_id: string;
  user_id: string;
  /** smtp, webhook or inbox. */
  method: string;
  /** pending, leased, sent, temporary_failure, permanent_failure, inhibited. */
  status: string;
  status_reason: string;
  created_by: string;
  /** JSON NotificationPayload. */
  payload: string;
  attempt_count: number;
  /** JSON array of ids. */
  targets: string;
  created_at: string;
  updated_at: string;
  leased_until: string | null;
  next_retry_after: string | null;
  dedupe_hash: string | null;
}

/** A user's choice to turn one notification template off (or back on). */
export interface NotificationPreferenceTable {
  user_id: string;
  template_id: string;
  /** 0 or 1. */
  disabled: number;
  created_at: string;
  updated_at: string;
}

/** A notification in a user's in-app inbox. */
export interface InboxNotificationTable {
  id: string;
  user_id: string;
  template_id: string;
  /** JSON array of ids. */
  targets: string;
  title: string;
  content: string;
  icon: string;
  /** JSON array of { label, url }. */
  actions: string;
  read_at: string | null;
  created_at: string;
}

/** The method an operator chose for one notification template. */
export interface NotificationTemplateMethodTable {
  template_id: string;
  method: string;
}

/** When a periodic report (the weekly failed builds) last went out. */
export interface NotificationReportRunTable {
  template_id: string;
  last_generated_at: string;
}
