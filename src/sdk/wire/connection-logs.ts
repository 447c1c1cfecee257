import { Type, type Static } from '@sinclair/typebox';
import { MinimalOrganization } from './audit.js';
import { DateTime } from './common.js';
import { User } from './users.js';

/** How a connection reached the workspace. */
export const CONNECTION_TYPES = ['jetbrains', 'port_forwarding', 'reconnecting_pty', 'ssh', 'vscode', 'workspace_app'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];
export const ConnectionType = Type.Union(CONNECTION_TYPES.map((type) => Type.Literal(type)));

/** For web connections (apps and shared ports): who, with what, and the HTTP status. */
export const ConnectionLogWebInfo = Type.Object({
  user_agent: Type.String(),
  user: Type.Union([User, Type.Null()]),
  slug_or_port: Type.String(),
  status_code: Type.Integer(),
});
export type ConnectionLogWebInfo = Static<typeof ConnectionLogWebInfo>;

/** For sessions (SSH, terminals): the session, and how it ended once it has. */
export const ConnectionLogSSHInfo = Type.Object({
  connection_id: Type.String(),
  disconnect_time: Type.Optional(DateTime),
  disconnect_reason: Type.Optional(Type.String()),
  exit_code: Type.Optional(Type.Integer()),
});
export type ConnectionLogSSHInfo = Static<typeof ConnectionLogSSHInfo>;

/**
 * One connection to a workspace. Beside the reference's fields, every connection carries who made
 * it (`user`, null for an unauthenticated request to a public app) and the bytes each way, which
 * the relay counts.
 */
export const ConnectionLog = Type.Object({
  id: Type.String(),
  connect_time: DateTime,
  organization: MinimalOrganization,
  workspace_owner_id: Type.String(),
  workspace_owner_username: Type.String(),
  workspace_id: Type.String(),
  workspace_name: Type.String(),
  agent_name: Type.String(),
  ip: Type.Optional(Type.String()),
  type: ConnectionType,
  web_info: Type.Optional(ConnectionLogWebInfo),
  ssh_info: Type.Optional(ConnectionLogSSHInfo),
  user: Type.Union([User, Type.Null()]),
  disconnect_time: Type.Optional(DateTime),
  bytes_to_workspace: Type.Integer(),
  bytes_from_workspace: Type.Integer(),
});
export type ConnectionLog = Static<typeof ConnectionLog>;

/** `GET /connectionlog`: one page, newest first, and how many match in all. */
export const ConnectionLogResponse = Type.Object({ connection_logs: Type.Array(ConnectionLog), count: Type.Integer() });
export type ConnectionLogResponse = Static<typeof ConnectionLogResponse>;

/**
 * `GET /connectionlog` query: `q` is the search (`organization: workspace_owner: workspace_id:
 * type:ssh username: user_email: connected_after: connected_before: status:ongoing|completed`).
 */
export interface ConnectionLogsRequest {
  readonly q?: string;
  readonly limit?: number;
  readonly offset?: number;
}
