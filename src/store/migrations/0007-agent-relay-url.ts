import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/** Which replica holds each agent's connection, so other replicas can relay streams through it. */
export const agentRelayUrlMigration: Migration = {
  version: 7,
  name: 'agent-relay-url',
  async up(db: Kysely<unknown>): Promise<void> {
    // Empty while the agent is connected nowhere.
    await db.schema
      .alterTable('workspace_agents')
      .addColumn('relay_url', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  },
};
