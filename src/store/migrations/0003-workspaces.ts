import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { Migration } from './migration.js';

/** Workspaces, their builds, the agents a build's resources run, and shared ports. */
export const workspacesMigration: Migration = {
  version: 3,
  name: 'workspaces',
  async up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
    const binary = dialect === 'postgres' ? sql`bytea` : sql`blob`;

    await db.schema
      .createTable('workspaces')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('template_id', 'text', (c) => c.notNull().references('templates.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('autostart_schedule', 'text')
      .addColumn('ttl_ms', 'bigint')
      .addColumn('last_used_at', 'text', (c) => c.notNull())
      .addColumn('dormant_at', 'text')
      .addColumn('deleting_at', 'text')
      .addColumn('automatic_updates', 'text', (c) => c.notNull().defaultTo('never'))
      .addColumn('favorite', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex('workspaces_owner_name_unique')
      .on('workspaces')
      .columns(['owner_id'])
      .expression(sql`lower(name)`)
      .unique()
      .where(sql.ref('deleted'), '=', 0)
      .execute();
    await db.schema.createIndex('workspaces_template').on('workspaces').column('template_id').execute();

    await db.schema
      .createTable('workspace_builds')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('template_version_id', 'text', (c) => c.notNull().references('template_versions.id'))
      .addColumn('build_number', 'integer', (c) => c.notNull())
      .addColumn('transition', 'text', (c) => c.notNull())
      .addColumn('initiator_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('job_id', 'text', (c) => c.notNull().references('provisioner_jobs.id'))
      .addColumn('reason', 'text', (c) => c.notNull().defaultTo('initiator'))
      .addColumn('provisioner_state', binary)
      .addColumn('deadline', 'text')
      .addColumn('max_deadline', 'text')
      .addColumn('daily_cost', 'integer', (c) => c.notNull().defaultTo(0))
      // JSON array of {name, value}: the parameters this build resolved.
      .addColumn('rich_parameter_values', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('template_version_preset_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('workspace_builds_number_unique')
      .on('workspace_builds')
      .columns(['workspace_id', 'build_number'])
      .unique()
      .execute();
    await db.schema.createIndex('workspace_builds_job').on('workspace_builds').column('job_id').execute();

    await db.schema
      .createTable('workspace_agents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('resource_id', 'text', (c) => c.notNull().references('workspace_resources.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      // Hex SHA-256 of the agent's token; the token itself lives only in the compute that runs the agent.
      .addColumn('auth_token_hash', 'text', (c) => c.notNull())
      // JSON of what the template declared: directory, env, apps, scripts, display apps, ...
      .addColumn('definition', 'text', (c) => c.notNull())
      .addColumn('lifecycle_state', 'text', (c) => c.notNull().defaultTo('created'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('first_connected_at', 'text')
      .addColumn('last_connected_at', 'text')
      .addColumn('disconnected_at', 'text')
      .addColumn('started_at', 'text')
      .addColumn('ready_at', 'text')
      .execute();
    await db.schema
      .createTable('workspace_port_shares')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('agent_name', 'text', (c) => c.notNull())
      .addColumn('port', 'integer', (c) => c.notNull())
      .addColumn('share_level', 'text', (c) => c.notNull())
      .addColumn('protocol', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('workspace_port_shares_pk', ['workspace_id', 'agent_name', 'port'])
      .execute();

    await db.schema.createIndex('workspace_agents_resource').on('workspace_agents').column('resource_id').execute();
    await db.schema.createIndex('workspace_agents_token').on('workspace_agents').column('auth_token_hash').execute();
  },
};
