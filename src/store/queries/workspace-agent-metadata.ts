import type { Kysely, Selectable } from 'kysely';
import type { Database, WorkspaceAgentMetadataTable } from '../schema.js';

export type AgentMetadataRow = Selectable<WorkspaceAgentMetadataTable>;

/** The latest result of each metadata item of an agent that has reported one, by key. */
export async function listAgentMetadata(db: Kysely<Database>, agentId: string): Promise<AgentMetadataRow[]> {
  return db.selectFrom('workspace_agent_metadata').selectAll().where('agent_id', '=', agentId).orderBy('key').execute();
}

/** Keeps `rows` as the latest results of their keys, in one statement: a batch is stored whole or not at all. */
export async function upsertAgentMetadata(db: Kysely<Database>, rows: readonly AgentMetadataRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('workspace_agent_metadata')
    .values([...rows])
    .onConflict((conflict) =>
      conflict.columns(['agent_id', 'key']).doUpdateSet((eb) => ({
        value: eb.ref('excluded.value'),
        error: eb.ref('excluded.error'),
        collected_at: eb.ref('excluded.collected_at'),
      })),
    )
    .execute();
}
