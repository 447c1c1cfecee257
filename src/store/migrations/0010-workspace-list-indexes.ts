import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Indexes for workspace lists: live workspaces in list order (a page stops once it is full), and
 * covering indexes so that finding each workspace's latest build and its job's status reads only
 * indexes, never the rows (which carry provisioner state and parameters).
 */
export const workspaceListIndexesMigration: Migration = {
  version: 10,
  name: 'workspace-list-indexes',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('workspaces_live_owner_name')
      .on('workspaces')
      .columns(['owner_id', 'name'])
      .where(sql.ref('deleted'), '=', 0)
      .execute();
    await db.schema
      .createIndex('workspace_builds_latest')
      .on('workspace_builds')
      .columns(['workspace_id', 'build_number', 'job_id', 'transition', 'template_version_id'])
      .execute();
    await db.schema
      .createIndex('provisioner_jobs_status')
      .on('provisioner_jobs')
      .columns(['id', 'completed_at', 'error', 'canceled_at', 'started_at'])
      .execute();
  },
};
