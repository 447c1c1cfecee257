import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { Migration } from './migration.js';
import { buildStatus, isLatest } from './0012-workspace-latest-build-status.js';

/**
 * A new build leaves its workspace's row alone when the row already shows the build's status. A
 * new workspace is written with its first build's status, so creating one writes its row once
 * instead of twice: the second write changed an indexed column, so it added an entry to each of the
 * table's indexes. The triggers on jobs keep migration 0012's form, since a job's change of
 * timestamps or error always changes the status.
 */
export const workspaceStatusUnchangedMigration: Migration = {
  version: 18,
  name: 'workspace-status-unchanged',
  async up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
    const status = sql`(select ${buildStatus(sql`new.transition`)} from provisioner_jobs lj where lj.id = new.job_id)`;
    const differs = dialect === 'postgres' ? sql`is distinct from` : sql`is not`;
    const onBuild = sql`update workspaces set latest_build_status = ${status}
      where id = new.workspace_id and ${isLatest('new')} and latest_build_status ${differs} ${status}`;
    if (dialect === 'sqlite') {
      await sql`drop trigger workspace_status_on_new_build`.execute(db);
      await sql`drop trigger workspace_status_on_build`.execute(db);
      await sql`create trigger workspace_status_on_new_build after insert on workspace_builds
        begin ${onBuild}; end`.execute(db);
      await sql`create trigger workspace_status_on_build after update of transition, job_id on workspace_builds
        begin ${onBuild}; end`.execute(db);
      return;
    }
    await sql`create or replace function workspace_status_on_build() returns trigger language plpgsql as $$
      begin ${onBuild}; return null; end $$`.execute(db);
  },
};
