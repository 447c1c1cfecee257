import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DialectName } from '../database.js';
import type { Migration } from './migration.js';

/**
 * A build's status from its job (the row named `job`, `lj` unless told) and its transition, the
 * rules of domain/provisioner-job-status.ts and domain/workspace-builds.ts in SQL. Migration 0018
 * uses it too, so the rules stay as this migration first wrote them.
 */
export function buildStatus(transition: RawBuilder<unknown>, job = 'lj'): RawBuilder<unknown> {
  const byTransition = (start: string, stop: string, other: string): RawBuilder<unknown> =>
    sql`case ${transition} when 'start' then ${sql.lit(start)} when 'stop' then ${sql.lit(stop)} else ${sql.lit(other)} end`;
  const lj = sql.raw(job);
  return sql`case
    when ${lj}.error <> '' then 'failed'
    when ${lj}.completed_at is null and ${lj}.canceled_at is not null then 'canceling'
    when ${lj}.completed_at is null and ${lj}.started_at is null then 'pending'
    when ${lj}.completed_at is null then ${byTransition('starting', 'stopping', 'deleting')}
    when ${lj}.canceled_at is not null then 'canceled'
    else ${byTransition('running', 'stopped', 'deleted')}
  end`;
}

/** The columns of a job that its build's status depends on. */
const JOB_COLUMNS = sql.raw('started_at, completed_at, canceled_at, error');

/** Whether build `b` is its workspace's latest. */
export const isLatest = (b: string): RawBuilder<unknown> =>
  sql`not exists (select 1 from workspace_builds nb where nb.workspace_id = ${sql.raw(b)}.workspace_id and nb.build_number > ${sql.raw(b)}.build_number)`;

/**
 * Writes what the status triggers do: `onBuild` when a build is inserted or its transition or job
 * changes, `onJob` when a job's status columns change. On SQLite these are the triggers themselves,
 * which must not exist yet; on PostgreSQL the functions the triggers run, created or replaced.
 */
export async function writeStatusTriggers(
  db: Kysely<unknown>,
  dialect: DialectName,
  onBuild: RawBuilder<unknown>,
  onJob: RawBuilder<unknown>,
): Promise<void> {
  if (dialect === 'sqlite') {
    await sql`create trigger workspace_status_on_new_build after insert on workspace_builds
      begin ${onBuild}; end`.execute(db);
    await sql`create trigger workspace_status_on_build after update of transition, job_id on workspace_builds
      begin ${onBuild}; end`.execute(db);
    await sql`create trigger workspace_status_on_job after update of ${JOB_COLUMNS} on provisioner_jobs
      begin ${onJob}; end`.execute(db);
    return;
  }
  await sql`create or replace function workspace_status_on_build() returns trigger language plpgsql as $$
    begin ${onBuild}; return null; end $$`.execute(db);
  await sql`create or replace function workspace_status_on_job() returns trigger language plpgsql as $$
    begin ${onJob}; return null; end $$`.execute(db);
}

/**
 * Each workspace's latest build status, on the workspace row, so that a list filtered by status
 * counts its matches from one index instead of joining every workspace's builds and jobs.
 *
 * Triggers keep it: a new or changed build sets it, and any change of a job's timestamps or error
 * resets it for the workspace whose latest build that job is. Every path that moves a job (the provisioner
 * protocol, cancel, the reaper, recovery after a crash) is covered without remembering to.
 */
export const workspaceLatestBuildStatusMigration: Migration = {
  version: 12,
  name: 'workspace-latest-build-status',
  async up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
    await db.schema.alterTable('workspaces').addColumn('latest_build_status', 'text').execute();
    await sql`update workspaces set latest_build_status = (
      select ${buildStatus(sql`lb.transition`)} from workspace_builds lb join provisioner_jobs lj on lj.id = lb.job_id
      where lb.workspace_id = workspaces.id and ${isLatest('lb')})`.execute(db);
    await db.schema
      .createIndex('workspaces_live_status')
      .on('workspaces')
      .columns(['latest_build_status', 'owner_id', 'name'])
      .where(sql.ref('deleted'), '=', 0)
      .execute();

    const onBuild = sql`update workspaces set latest_build_status = (
        select ${buildStatus(sql`new.transition`)} from provisioner_jobs lj where lj.id = new.job_id)
      where id = new.workspace_id and ${isLatest('new')}`;
    const onJob = sql`update workspaces set latest_build_status = (
        select ${buildStatus(sql`lb.transition`)} from workspace_builds lb join provisioner_jobs lj on lj.id = lb.job_id
        where lb.workspace_id = workspaces.id and ${isLatest('lb')})
      where id in (select b.workspace_id from workspace_builds b where b.job_id = new.id)`;
    await writeStatusTriggers(db, dialect, onBuild, onJob);
    if (dialect === 'sqlite') return;
    await sql`create trigger workspace_status_on_build after insert or update of transition, job_id on workspace_builds
      for each row execute function workspace_status_on_build()`.execute(db);
    await sql`create trigger workspace_status_on_job after update of ${JOB_COLUMNS} on provisioner_jobs
      for each row execute function workspace_status_on_job()`.execute(db);
  },
};
