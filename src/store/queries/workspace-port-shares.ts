import type { Kysely, Selectable } from 'kysely';
import type { Database, WorkspacePortShareTable } from '../schema.js';

export type PortShareRow = Selectable<WorkspacePortShareTable>;

/** How a workspace shares one port of one of its agents; undefined when it does not. */
export async function getPortShare(
  db: Kysely<Database>,
  workspaceId: string,
  agentName: string,
  port: number,
): Promise<PortShareRow | undefined> {
  return db
    .selectFrom('workspace_port_shares')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('agent_name', '=', agentName)
    .where('port', '=', port)
    .executeTakeFirst();
}
