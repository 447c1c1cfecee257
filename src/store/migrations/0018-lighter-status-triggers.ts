import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { Migration } from './migration.js';
import { buildStatus, isLatest, writeStatusTriggers } from './0012-workspace-latest-build-status.js';

/**
 * Lighter triggers for each workspace's latest build status (migration 0012), with the same
 * results:
 *
 * - A new build leaves its workspace's row alone when the row already shows the build's status. A
 *   new workspace is written with its first build's status, so creating one writes its row once
 *   instead of twice; the second write changed an indexed column, so it added an entry to each of
 *   the table's indexes.
 * - A job's change sets the status from the job's new row and its build, when that build is its
 *   workspace's latest, instead of reading the job back and recomputing the latest build of the
 *   workspace: a smaller statement for the database to plan and start on each of a build's job
 *   changes. A job whose build is not the latest leaves the row alone (before, it wrote the status
 *   the row already had).
 */
export const lighterStatusTriggersMigration: Migration = {
  version: 18,
  name: 'lighter-status-triggers',
  async up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
    const onBuild = sql`update workspaces set latest_build_status = next.status
      from (select ${buildStatus(sql`new.transition`)} as status from provisioner_jobs lj where lj.id = new.job_id) as next
      where workspaces.id = new.workspace_id and ${isLatest('new')} and workspaces.latest_build_status is distinct from next.status`;
    const onJob = sql`update workspaces set latest_build_status = ${buildStatus(sql`lb.transition`, 'new')}
      from workspace_builds lb
      where lb.job_id = new.id and workspaces.id = lb.workspace_id and ${isLatest('lb')}`;
    if (dialect === 'sqlite') {
      for (const trigger of ['workspace_status_on_new_build', 'workspace_status_on_build', 'workspace_status_on_job'])
        await sql`drop trigger ${sql.raw(trigger)}`.execute(db);
    }
    await writeStatusTriggers(db, dialect, onBuild, onJob);
  },
};
