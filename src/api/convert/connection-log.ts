import type { ConnectionLog, ConnectionType } from '../../sdk/wire/index.js';
import type { ConnectionLogPage } from '../../store/authorized/connection-logs.js';
import type { ConnectionLogView } from '../../store/rows.js';
import { toWireUser } from './user.js';

/** Types whose rows are sessions (`ssh_info`); the others are web connections (`web_info`). */
const SESSION_TYPES: ReadonlySet<string> = new Set(['ssh', 'reconnecting_pty', 'vscode', 'jetbrains']);

/** A page of the connection log as the API shows it. */
export function toWireConnectionLogs(page: ConnectionLogPage): ConnectionLog[] {
  return page.rows.map((row) => toWireConnectionLog(row, page));
}

/**
 * One row as the API shows it: sessions carry `ssh_info` (its end, and the exit status once there
 * is one), web connections `web_info` (the HTTP status in `status_code`). The end and the bytes are
 * also given at the top level for every type.
 */
function toWireConnectionLog(row: ConnectionLogView, page: ConnectionLogPage): ConnectionLog {
  const userRow = row.user_id === null ? undefined : page.users.get(row.user_id);
  const user = userRow ? toWireUser(userRow, page.organizationIds.get(userRow.id) ?? []) : null;
  const ended = row.disconnect_time ?? undefined;
  return {
    id: row.id,
    connect_time: row.connect_time,
    organization: {
      id: row.organization_id,
      name: row.organization_name,
      display_name: row.organization_display_name,
      icon: row.organization_icon,
    },
    workspace_owner_id: row.workspace_owner_id,
    workspace_owner_username: row.workspace_owner_username,
    workspace_id: row.workspace_id,
    workspace_name: row.workspace_name,
    agent_name: row.agent_name,
    ...(row.ip ? { ip: row.ip } : {}),
    type: row.type as ConnectionType,
    ...(SESSION_TYPES.has(row.type)
      ? {
          ssh_info: {
            connection_id: row.connection_id,
            ...(ended ? { disconnect_time: ended, disconnect_reason: row.disconnect_reason } : {}),
            ...(row.code !== null ? { exit_code: row.code } : {}),
          },
        }
      : { web_info: { user_agent: row.user_agent, user, slug_or_port: row.slug_or_port, status_code: row.code ?? 0 } }),
    user,
    ...(ended ? { disconnect_time: ended } : {}),
    bytes_to_workspace: row.bytes_to_workspace,
    bytes_from_workspace: row.bytes_from_workspace,
  };
}
