import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { Migration } from './migration.js';

/** What connected agents report (startup facts, app health, stats), their logs and log sources. */
export const agentsMigration: Migration = {
  version: 4,
  name: 'agents',
  async up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
    // SQLite takes one column per ALTER TABLE statement.
    const columns: readonly [string, 'text' | 'integer', string | number | null][] = [
      ['version', 'text', ''],
      ['expanded_directory', 'text', ''],
      ['subsystems', 'text', '[]'],
      ['api_version', 'text', ''],
      ['logs_length', 'integer', 0],
      ['logs_overflowed', 'integer', 0],
      // JSON object of app id -> initializing | healthy | unhealthy, as the agent last reported.
      ['app_health', 'text', '{}'],
      // JSON of the agent's latest stats report, and when it came.
      ['last_stats', 'text', null],
      ['last_stats_at', 'text', null],
    ];
    for (const [name, type, fallback] of columns) {
      await db.schema
        .alterTable('workspace_agents')
        .addColumn(name, type, (c) => (fallback === null ? c : c.notNull().defaultTo(fallback)))
        .execute();
    }

    await db.schema
      .createTable('workspace_agent_log_sources')
      .addColumn('agent_id', 'text', (c) => c.notNull().references('workspace_agents.id').onDelete('cascade'))
      // Ids are the agent's choice (and some are well known, such as External), so unique per agent only.
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('icon', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('workspace_agent_log_sources_pk', ['agent_id', 'id'])
      .execute();

    await db.schema
      .createTable('workspace_agent_logs')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('agent_id', 'text', (c) => c.notNull().references('workspace_agents.id').onDelete('cascade'))
      .addColumn('log_source_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('output', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('workspace_agent_logs_agent').on('workspace_agent_logs').columns(['agent_id', 'id']).execute();

    await db.schema
      .createTable('workspace_agent_script_timings')
      .addColumn('agent_id', 'text', (c) => c.notNull().references('workspace_agents.id').onDelete('cascade'))
      .addColumn('script_id', 'text', (c) => c.notNull())
      .addColumn('stage', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('exit_code', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('workspace_agent_script_timings_agent').on('workspace_agent_script_timings').column('agent_id').execute();
  },
};
