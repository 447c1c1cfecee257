import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/** Users' git SSH keys and the statuses agents report for their apps. */
export const agentExtrasMigration: Migration = {
  version: 5,
  name: 'agent-extras',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('git_ssh_keys')
      .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      // Kept in the database as the reference does: agents fetch it to sign git operations.
      .addColumn('private_key', 'text', (c) => c.notNull())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('workspace_app_statuses')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('agent_id', 'text', (c) => c.notNull().references('workspace_agents.id').onDelete('cascade'))
      .addColumn('app_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('uri', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('workspace_app_statuses_workspace')
      .on('workspace_app_statuses')
      .columns(['workspace_id', 'created_at'])
      .execute();
    await db.schema.createIndex('workspace_app_statuses_agent').on('workspace_app_statuses').columns(['agent_id', 'created_at']).execute();
  },
};
