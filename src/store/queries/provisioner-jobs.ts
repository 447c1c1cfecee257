import type { Kysely, Selectable } from 'kysely';
import type { Database, ProvisionerJobLogTable, ProvisionerJobTable, WorkspaceResourceTable } from '../schema.js';

export type ProvisionerJobRow = Selectable<ProvisionerJobTable>;
export type ProvisionerJobLogRow = Selectable<ProvisionerJobLogTable>;
export type WorkspaceResourceRow = Selectable<WorkspaceResourceTable>;

/** What a new job needs besides what every queued job has. */
export type NewJobFields = Pick<
  ProvisionerJobRow,
  'id' | 'organization_id' | 'type' | 'provisioner' | 'file_id' | 'initiator_id' | 'input' | 'tags'
>;

/** A job row as it enters the queue: not started, not finished, no error. */
export function queuedJob(fields: NewJobFields, now: string): ProvisionerJobRow {
  return {
    ...fields,
    storage_method: 'file',
    created_at: now,
    updated_at: now,
    started_at: null,
    completed_at: null,
    canceled_at: null,
    error: '',
    error_code: '',
    worker_id: null,
  };
}

/** One job by id. */
export async function getJobById(db: Kysely<Database>, id: string): Promise<ProvisionerJobRow | undefined> {
  return db.selectFrom('provisioner_jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Jobs by id, in no particular order. */
export async function getJobsByIds(db: Kysely<Database>, ids: readonly string[]): Promise<ProvisionerJobRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('provisioner_jobs').selectAll().where('id', 'in', ids).execute();
}

/** Inserts a job row as given. */
export async function insertJob(db: Kysely<Database>, row: ProvisionerJobRow): Promise<void> {
  await db.insertInto('provisioner_jobs').values(row).execute();
}

/**
 * Jobs nobody has started, canceled or finished, oldest first: the queue. Limited to one
 * organization and, when given, to provisioner types.
 */
export async function listQueuedJobs(
  db: Kysely<Database>,
  organizationId: string,
  provisioners?: readonly string[],
): Promise<ProvisionerJobRow[]> {
  let query = db
    .selectFrom('provisioner_jobs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('started_at', 'is', null)
    .where('completed_at', 'is', null)
    .where('canceled_at', 'is', null);
  if (provisioners) {
    if (provisioners.length === 0) return [];
    query = query.where('provisioner', 'in', provisioners);
  }
  return query.orderBy('created_at').orderBy('id').execute();
}

/**
 * Claims a queued job for a worker. Only one claimant can win: the update applies only while the
 * job is still unclaimed, so concurrent daemons (and replicas) need no lock.
 */
export async function claimJob(db: Kysely<Database>, jobId: string, workerId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('provisioner_jobs')
    .set({ started_at: now, updated_at: now, worker_id: workerId })
    .where('id', '=', jobId)
    .where('started_at', 'is', null)
    .where('completed_at', 'is', null)
    .where('canceled_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Marks a job canceled. One that no daemon has taken ends at once; a running one is `canceling`
 * until its daemon reports. Finished or already canceled jobs are left as they are.
 */
export async function cancelJob(db: Kysely<Database>, jobId: string, now: string): Promise<void> {
  await db
    .updateTable('provisioner_jobs')
    .set((eb) => ({
      canceled_at: now,
      updated_at: now,
      completed_at: eb.case().when('started_at', 'is', null).then(now).else(eb.ref('completed_at')).end(),
    }))
    .where('id', '=', jobId)
    .where('completed_at', 'is', null)
    .where('canceled_at', 'is', null)
    .execute();
}

/** Appends log lines to a job and returns the ids they got, in order. */
export async function insertJobLogs(
  db: Kysely<Database>,
  jobId: string,
  logs: readonly Omit<ProvisionerJobLogRow, 'id' | 'job_id'>[],
): Promise<number[]> {
  if (logs.length === 0) return [];
  const rows = await db
    .insertInto('provisioner_job_logs')
    .values(logs.map((log) => ({ ...log, job_id: jobId })))
    .returning('id')
    .execute();
  return rows.map((row) => Number(row.id));
}

/** A job's logs with ids above `after` (and below `before`, when given), in order. */
export async function listJobLogs(
  db: Kysely<Database>,
  jobId: string,
  range: { readonly after?: number | undefined; readonly before?: number | undefined } = {},
): Promise<ProvisionerJobLogRow[]> {
  let query = db.selectFrom('provisioner_job_logs').selectAll().where('job_id', '=', jobId);
  if (range.after !== undefined) query = query.where('id', '>', range.after);
  if (range.before !== undefined) query = query.where('id', '<', range.before);
  return query.orderBy('id').execute();
}

/** Inserts the resources a job reported. */
export async function insertResources(db: Kysely<Database>, rows: readonly WorkspaceResourceRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('workspace_resources')
    .values([...rows])
    .execute();
}

/** The resources of jobs, ordered by name. */
export async function listResourcesOfJobs(db: Kysely<Database>, jobIds: readonly string[]): Promise<WorkspaceResourceRow[]> {
  if (jobIds.length === 0) return [];
  return db.selectFrom('workspace_resources').selectAll().where('job_id', 'in', jobIds).orderBy('name').orderBy('transition').execute();
}
