import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Per-user settings kept as key and value (terminal font, dismissed alerts), so that a new
 * setting of the dashboard needs no new column. The theme stays on the user row, where the user
 * answer reads it.
 */
export const userConfigsMigration: Migration = {
  version: 20,
  name: 'user-configs',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('user_configs')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_configs_pkey', ['user_id', 'key'])
      .execute();
  },
};
