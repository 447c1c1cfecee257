import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * What usage insights are computed from, recorded as it happens: one row per minute in which a
 * user used a workspace of a template in one way (a kind of session, or an app), and the history
 * of every user's status. Neither has foreign keys: history outlives the rows it speaks of.
 */
export const usageInsightsMigration: Migration = {
  version: 14,
  name: 'usage-insights',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('workspace_usage_minutes')
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('template_id', 'text', (c) => c.notNull())
      // Minutes since the Unix epoch, UTC: ranges, days in any offset and 30-minute buckets are integer arithmetic.
      .addColumn('minute', 'integer', (c) => c.notNull())
      // ssh | sftp | reconnecting_pty | vscode | jetbrains | app
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('app_slug', 'text', (c) => c.notNull().defaultTo(''))
      // The app's name and icon when it was used, for reports that name it.
      .addColumn('app_display_name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('app_icon', 'text', (c) => c.notNull().defaultTo(''))
      // The agent's median connection latency reported in that minute; 0 when none was.
      .addColumn('latency_ms', 'double precision', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('workspace_usage_minutes_pk', ['user_id', 'template_id', 'minute', 'kind', 'app_slug'])
      .execute();
    await db.schema
      .createIndex('workspace_usage_minutes_minute')
      .on('workspace_usage_minutes')
      .columns(['minute', 'template_id'])
      .execute();

    await db.schema
      .createTable('user_status_changes')
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('changed_at', 'text', (c) => c.notNull())
      // active | dormant | suspended | deleted
      .addColumn('new_status', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_status_changes_pk', ['user_id', 'changed_at'])
      .execute();
    // Users from before this history began: their status since they were made, and their deletion.
    await sql`INSERT INTO user_status_changes (user_id, changed_at, new_status) SELECT id, created_at, status FROM users`.execute(db);
    await sql`INSERT INTO user_status_changes (user_id, changed_at, new_status)
      SELECT id, updated_at, 'deleted' FROM users WHERE deleted = 1 AND updated_at > created_at`.execute(db);
  },
};
