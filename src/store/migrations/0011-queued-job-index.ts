import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The queue of jobs waiting for a provisioner, in the order they are taken: read when a daemon
 * acquires a job and for the queue position of every pending job a page shows. Without it each
 * read scans every job ever run.
 */
export const queuedJobIndexMigration: Migration = {
  version: 11,
  name: 'queued-job-index',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('provisioner_jobs_queued')
      .on('provisioner_jobs')
      .columns(['organization_id', 'created_at', 'id'])
      .where(sql.ref('started_at'), 'is', null)
      .where(sql.ref('completed_at'), 'is', null)
      .where(sql.ref('canceled_at'), 'is', null)
      .execute();
  },
};
