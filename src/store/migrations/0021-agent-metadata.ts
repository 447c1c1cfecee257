import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The latest result of each metadata item an agent collects, one row per agent and key: the agent
 * reports every run and the row is overwritten, so the table stays as small as the templates'
 * items. What an item is (its script, interval, name) stays in the agent's definition.
 */
export const agentMetadataMigration: Migration = {
  version: 21,
  name: 'agent-metadata',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('workspace_agent_metadata')
      .addColumn('agent_id', 'text', (c) => c.notNull().references('workspace_agents.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('error', 'text', (c) => c.notNull())
      .addColumn('collected_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('workspace_agent_metadata_pkey', ['agent_id', 'key'])
      .execute();
  },
};
