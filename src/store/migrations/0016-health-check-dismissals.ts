import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The sections of the health report an operator has dismissed (`PUT /debug/health/settings`): one
 * row per section name, so dismissing twice is one row and the set needs no JSON parsing.
 */
export const healthCheckDismissalsMigration: Migration = {
  version: 16,
  name: 'health-check-dismissals',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('health_check_dismissals')
      .addColumn('section', 'text', (col) => col.primaryKey())
      .addColumn('dismissed_at', 'text', (col) => col.notNull())
      .execute();
  },
};
