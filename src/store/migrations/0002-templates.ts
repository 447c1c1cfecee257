import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { Migration } from './migration.js';

/** Uploaded files, templates and their versions, provisioner jobs with their logs and resources, provisioner daemons and keys. */
export const templatesMigration: Migration = {
  version: 2,
  name: 'templates',
  async up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
    const binary = dialect === 'postgres' ? sql`bytea` : sql`blob`;
    const bigint = 'bigint' as const;

    await db.schema
      .createTable('files')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('mimetype', 'text', (c) => c.notNull())
      .addColumn('size', bigint, (c) => c.notNull())
      .addColumn('data', binary, (c) => c.notNull())
      .execute();
    // Uploads are deduplicated per uploader, not across users.
    await db.schema.createIndex('files_hash_creator_unique').on('files').columns(['hash', 'created_by']).unique().execute();

    await db.schema
      .createTable('templates')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('icon', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('provisioner', 'text', (c) => c.notNull())
      .addColumn('active_version_id', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('default_ttl_ms', bigint, (c) => c.notNull().defaultTo(0))
      .addColumn('activity_bump_ms', bigint, (c) => c.notNull().defaultTo(3_600_000))
      .addColumn('autostop_requirement_days', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('autostop_requirement_weeks', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('autostart_requirement_days', 'integer', (c) => c.notNull().defaultTo(127))
      .addColumn('allow_user_autostart', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('allow_user_autostop', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('allow_user_cancel_workspace_jobs', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failure_ttl_ms', bigint, (c) => c.notNull().defaultTo(0))
      .addColumn('time_til_dormant_ms', bigint, (c) => c.notNull().defaultTo(0))
      .addColumn('time_til_dormant_autodelete_ms', bigint, (c) => c.notNull().defaultTo(0))
      .addColumn('require_active_version', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('deprecation_message', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('max_port_share_level', 'text', (c) => c.notNull().defaultTo('owner'))
      .addColumn('use_classic_parameter_flow', 'integer', (c) => c.notNull().defaultTo(0))
      // Template ACLs: user or group id -> actions. The group whose id is the organization's is "everyone".
      .addColumn('user_acl', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('group_acl', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema
      .createIndex('templates_org_name_unique')
      .on('templates')
      .columns(['organization_id'])
      .expression(sql`lower(name)`)
      .unique()
      .where(sql.ref('deleted'), '=', 0)
      .execute();

    await db.schema
      .createTable('provisioner_jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('provisioner', 'text', (c) => c.notNull())
      .addColumn('storage_method', 'text', (c) => c.notNull().defaultTo('file'))
      .addColumn('file_id', 'text', (c) => c.notNull().references('files.id'))
      .addColumn('initiator_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('input', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('completed_at', 'text')
      .addColumn('canceled_at', 'text')
      .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('error_code', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('worker_id', 'text')
      .execute();
    await db.schema.createIndex('provisioner_jobs_org_created').on('provisioner_jobs').columns(['organization_id', 'created_at']).execute();
    await db.schema.createIndex('provisioner_jobs_pending').on('provisioner_jobs').columns(['started_at', 'created_at']).execute();

    await db.schema
      .createTable('provisioner_job_logs')
      .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('job_id', 'text', (c) => c.notNull().references('provisioner_jobs.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('stage', 'text', (c) => c.notNull())
      .addColumn('output', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('provisioner_job_logs_job').on('provisioner_job_logs').columns(['job_id', 'id']).execute();

    await db.schema
      .createTable('template_versions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('template_id', 'text', (c) => c.references('templates.id').onDelete('cascade'))
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('readme', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('job_id', 'text', (c) => c.notNull().references('provisioner_jobs.id'))
      .addColumn('created_by', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
      // What the import found, as JSON: stored with the version, never queried by field.
      .addColumn('variables', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('parameters', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('presets', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('external_auth', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema
      .createIndex('template_versions_template_name_unique')
      .on('template_versions')
      .columns(['template_id'])
      .expression(sql`lower(name)`)
      .unique()
      .where(sql.ref('template_id'), 'is not', null)
      .execute();
    await db.schema.createIndex('template_versions_job').on('template_versions').column('job_id').execute();

    await db.schema
      .createTable('workspace_resources')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('job_id', 'text', (c) => c.notNull().references('provisioner_jobs.id').onDelete('cascade'))
      .addColumn('transition', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('hide', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('icon', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('daily_cost', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('[]'))
      // Planned agents of import and dry-run jobs; built workspaces keep agents in their own rows.
      .addColumn('planned_agents', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('workspace_resources_job').on('workspace_resources').column('job_id').execute();

    await db.schema
      .createTable('provisioner_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('hashed_secret', 'text', (c) => c.notNull())
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('provisioner_keys_org_name_unique')
      .on('provisioner_keys')
      .columns(['organization_id'])
      .expression(sql`lower(name)`)
      .unique()
      .execute();

    await db.schema
      .createTable('provisioner_daemons')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('provisioners', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('key_id', 'text')
      .addColumn('version', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('api_version', 'text', (c) => c.notNull().defaultTo('1.0'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'text')
      .execute();
    await db.schema.createIndex('provisioner_daemons_org').on('provisioner_daemons').column('organization_id').execute();
  },
};
