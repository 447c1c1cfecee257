import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/** The cloud instance id of each agent, for agents that authenticate with their instance identity. */
export const agentInstanceIdentityMigration: Migration = {
  version: 6,
  name: 'agent-instance-identity',
  async up(db: Kysely<unknown>): Promise<void> {
    // Empty for agents that authenticate with their token only; an empty id never matches.
    await db.schema
      .alterTable('workspace_agents')
      .addColumn('auth_instance_id', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema.createIndex('workspace_agents_instance').on('workspace_agents').columns(['auth_instance_id', 'created_at']).execute();
  },
};
