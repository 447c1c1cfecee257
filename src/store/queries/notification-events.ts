import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { inList } from '../in-list.js';
import type { ProvisionerJobRow } from './provisioner-jobs.js';
import type { TemplateRow } from './templates.js';
import type { UserRow } from './users.js';
import type { WorkspaceBuildRow, WorkspaceRow } from './workspace-rows.js';

/*
 * The reads that find who is told of an event and what they are told. SQL only, no checks: the
 * notification events family (authorized/notification-events.ts) checks each row it hands out.
 */

/** The newest build of each workspace of the outer query `w`, joined as `b`. */
function newestBuildOf(db: Kysely<Database>) {
  return db
    .selectFrom('workspaces as w')
    .innerJoin('workspace_builds as b', 'b.workspace_id', 'w.id')
    .where('b.build_number', '=', (eb) =>
      eb
        .selectFrom('workspace_builds as nb')
        .select((nb) => nb.fn.max('nb.build_number').as('n'))
        .whereRef('nb.workspace_id', '=', 'w.id'),
    );
}

/**
 * Live, started workspaces whose newest build succeeded and whose deadline is after `after` and no
 * later than `until` (ISO times), with those builds.
 */
export async function listWorkspacesNearingDeadline(
  db: Kysely<Database>,
  after: string,
  until: string,
): Promise<{ workspace: WorkspaceRow; build: WorkspaceBuildRow }[]> {
  const workspaces = await newestBuildOf(db)
    .innerJoin('provisioner_jobs as j', 'j.id', 'b.job_id')
    .selectAll('w')
    .where('w.deleted', '=', 0)
    .where('w.dormant_at', 'is', null)
    .where('b.transition', '=', 'start')
    .where('j.completed_at', 'is not', null)
    .where('j.error', '=', '')
    .where('j.canceled_at', 'is', null)
    .where('b.deadline', '>', after)
    .where('b.deadline', '<=', until)
    .orderBy('w.id')
    .execute();
  const builds = await buildsOf(db, workspaces);
  return workspaces.flatMap((workspace) => {
    const build = builds.get(workspace.id);
    return build ? [{ workspace, build }] : [];
  });
}

/** Live workspaces of a template with their newest builds; those whose build used `exceptVersionId` are left out. */
export async function listWorkspacesOfTemplate(
  db: Kysely<Database>,
  templateId: string,
  exceptVersionId?: string,
): Promise<{ workspace: WorkspaceRow; build: WorkspaceBuildRow }[]> {
  let query = newestBuildOf(db).selectAll('w').where('w.deleted', '=', 0).where('w.template_id', '=', templateId);
  if (exceptVersionId !== undefined) query = query.where('b.template_version_id', '<>', exceptVersionId);
  const workspaces = await query.orderBy('w.id').execute();
  const builds = await buildsOf(db, workspaces);
  return workspaces.flatMap((workspace) => {
    const build = builds.get(workspace.id);
    return build ? [{ workspace, build }] : [];
  });
}

async function buildsOf(db: Kysely<Database>, workspaces: readonly WorkspaceRow[]): Promise<Map<string, WorkspaceBuildRow>> {
  if (workspaces.length === 0) return new Map();
  const rows = await newestBuildOf(db)
    .selectAll('b')
    .where('w.id', 'in', inList(workspaces.map((w) => w.id)))
    .execute();
  return new Map(rows.map((row) => [row.workspace_id, row]));
}

/** A build with its workspace (deleted or not) and its job, by the job's id. */
export async function getBuildOfJob(
  db: Kysely<Database>,
  jobId: string,
): Promise<{ build: WorkspaceBuildRow; workspace: WorkspaceRow; job: ProvisionerJobRow } | undefined> {
  const build = await db.selectFrom('workspace_builds').selectAll().where('job_id', '=', jobId).executeTakeFirst();
  if (!build) return undefined;
  const [workspace, job] = await Promise.all([
    db.selectFrom('workspaces').selectAll().where('id', '=', build.workspace_id).executeTakeFirst(),
    db.selectFrom('provisioner_jobs').selectAll().where('id', '=', jobId).executeTakeFirst(),
  ]);
  return workspace && job ? { build, workspace, job } : undefined;
}

/** Users by id, deleted ones too. */
export async function getUsersByIds(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, UserRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom('users').selectAll().where('id', 'in', inList(unique)).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** Users who are not deleted or suspended and hold at least one stored site role (the roles are a JSON array). */
export async function listUsersWithSiteRoles(db: Kysely<Database>): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('deleted', '=', 0)
    .where('status', '<>', 'suspended')
    .where('rbac_roles', '<>', '[]')
    .orderBy('username')
    .execute();
}

/** One workspace build whose job ended in `[since, until)`, with what the weekly report names. */
export interface EndedBuild {
  readonly build: WorkspaceBuildRow;
  readonly workspace: WorkspaceRow;
  readonly job: Pick<ProvisionerJobRow, 'error' | 'completed_at' | 'canceled_at'>;
}

/** Workspace builds whose jobs ended (succeeded, failed or canceled) in `[since, until)`, oldest first. */
export async function listBuildsEndedBetween(db: Kysely<Database>, since: string, until: string): Promise<EndedBuild[]> {
  const rows = await db
    .selectFrom('workspace_builds as b')
    .innerJoin('provisioner_jobs as j', 'j.id', 'b.job_id')
    .selectAll('b')
    .select(['j.error as job_error', 'j.completed_at as job_completed_at', 'j.canceled_at as job_canceled_at'])
    .where('j.completed_at', '>=', since)
    .where('j.completed_at', '<', until)
    .orderBy('j.completed_at')
    .orderBy('b.id')
    .execute();
  const workspaceIds = [...new Set(rows.map((row) => row.workspace_id))];
  const workspaces =
    workspaceIds.length === 0 ? [] : await db.selectFrom('workspaces').selectAll().where('id', 'in', inList(workspaceIds)).execute();
  const byId = new Map(workspaces.map((w) => [w.id, w]));
  return rows.flatMap(({ job_error, job_completed_at, job_canceled_at, ...build }) => {
    const workspace = byId.get(build.workspace_id);
    return workspace ? [{ build, workspace, job: { error: job_error, completed_at: job_completed_at, canceled_at: job_canceled_at } }] : [];
  });
}

/** Templates by id, deleted ones too. */
export async function getTemplatesByIds(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, TemplateRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom('templates').selectAll().where('id', 'in', inList(unique)).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Records that the periodic report `kindId` goes out now, unless it went out after `notBefore`
 * (ISO times). A compare-and-set: of two replicas claiming the same run, one wins. Returns when
 * it last went out (null the first time), or undefined when this claim lost or it is not due.
 */
export async function claimReportRun(
  db: Kysely<Database>,
  kindId: string,
  now: string,
  notBefore: string,
): Promise<{ readonly last: string | null } | undefined> {
  const row = await db.selectFrom('notification_report_runs').selectAll().where('template_id', '=', kindId).executeTakeFirst();
  if (!row) {
    const inserted = await db
      .insertInto('notification_report_runs')
      .values({ template_id: kindId, last_generated_at: now })
      .onConflict((oc) => oc.column('template_id').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 ? { last: null } : undefined;
  }
  if (row.last_generated_at > notBefore) return undefined;
  const updated = await db
    .updateTable('notification_report_runs')
    .set({ last_generated_at: now })
    .where('template_id', '=', kindId)
    .where('last_generated_at', '=', row.last_generated_at)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0 ? { last: row.last_generated_at } : undefined;
}
