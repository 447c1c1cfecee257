import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The daily schedule a user chose for their quiet hours; empty means the deployment's default
 * applies, so changing the default moves everyone who never chose their own.
 */
export const userQuietHoursMigration: Migration = {
  version: 29,
  name: 'user-quiet-hours',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('users')
      .addColumn('quiet_hours_schedule', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  },
};
