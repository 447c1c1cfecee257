import { sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { DialectName } from '../database.js';
import { parseJson } from '../json-column.js';
import { writeTogether, type Write } from '../write-together.js';
import { daemonsOfOrganizationsQuery, type ProvisionerDaemonRow } from './provisioner-daemons.js';
import { readTogether } from '../read-together.js';
import type { Database, ProvisionerJobLogTable, ProvisionerJobTable, WorkspaceResourceTable } from '../schema.js';
import { inList } from '../in-list.js';

export type ProvisionerJobRow = Selectable<ProvisionerJobTable>;
export type ProvisionerJobLogRow = Selectable<ProvisionerJobLogTable>;
/** A log line to store: a row without the id the database gives it and the job it is stored for. */
export type JobLogLine = Omit<ProvisionerJobLogRow, 'id' | 'job_id'>;
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
  return (await jobsByIdsQuery(db, ids)?.execute()) ?? [];
}

/** The select of {@link getJobsByIds}; undefined when there is nothing to look up. */
export function jobsByIdsQuery(db: Kysely<Database>, ids: readonly string[]) {
  return ids.length === 0 ? undefined : db.selectFrom('provisioner_jobs').selectAll().where('id', 'in', inList(ids));
}

/** Inserts a job row as given. */
export async function insertJob(db: Kysely<Database>, row: ProvisionerJobRow): Promise<void> {
  await db.insertInto('provisioner_jobs').values(row).execute();
}

/**
 * One kind of queued job (a provisioner and a set of tags) in a pending job's organization: how
 * many of that kind are queued, and how many of them are ahead of the job. A daemon's queue is the
 * kinds it takes, so a job's place is counted from these, a few rows, not read from the whole queue.
 */
export interface QueueCount {
  /** The pending job this counts for. */
  readonly job_id: string;
  readonly provisioner: string;
  /** The kind's tags in canonical form, as the jobs carry them. */
  readonly tags: string;
  readonly queued: number;
  /** Queued jobs of this kind before the job in queue order, (created_at, id). */
  readonly ahead: number;
}

/**
 * The queue counts of those of `jobIds` still queued (none for the others), each against its own
 * organization's queue. Undefined when there is nothing to look up.
 */
export function queueCountsQuery(db: Kysely<Database>, jobIds: readonly string[]) {
  if (jobIds.length === 0) return undefined;
  // A cross join, for SQLite: its left side is then always the outer loop, the few jobs asked
  // about found by id, each counting its organization's queue from the queue's index. As an inner
  // join SQLite chose to go through every queued job and, for each, every job of its organization.
  return db
    .selectFrom('provisioner_jobs as job')
    .crossJoin('provisioner_jobs as queued')
    .whereRef('queued.organization_id', '=', 'job.organization_id')
    .where('job.id', 'in', inList(jobIds))
    .where(isQueued('job'))
    .where(isQueued('queued'))
    .groupBy(['job.id', 'queued.provisioner', 'queued.tags'])
    .select(['job.id as job_id', 'queued.provisioner', 'queued.tags'])
    .select(kindCounts(sql.ref('job.created_at'), sql.ref('job.id')));
}

/**
 * The counts of an organization's queue for a job about to join it, as the queue was before: the
 * job's `job_id` is the caller's to add, and the job itself to count (see {@link withQueuedJob}).
 */
export function queueCountsBeforeQuery(db: Kysely<Database>, job: Pick<ProvisionerJobRow, 'organization_id' | 'created_at' | 'id'>) {
  return db
    .selectFrom('provisioner_jobs as queued')
    .where('queued.organization_id', '=', job.organization_id)
    .where(isQueued('queued'))
    .groupBy(['queued.provisioner', 'queued.tags'])
    .select(['queued.provisioner', 'queued.tags'])
    .select(kindCounts(sql.val(job.created_at), sql.val(job.id)));
}

/** The conditions of the partial index `provisioner_jobs_queued`, on the jobs of `table`. */
function isQueued(table: 'provisioner_jobs' | 'job' | 'queued') {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  return sql<SqlBool>`${column('started_at')} is null and ${column('completed_at')} is null and ${column('canceled_at')} is null`;
}

/** A kind's count, and how many of it come before the job at (createdAt, id); integers on both databases. */
function kindCounts(createdAt: Expression<string>, id: Expression<string>) {
  return [
    sql<number>`cast(count(*) as integer)`.as('queued'),
    sql<number>`cast(sum(case when "queued"."created_at" < ${createdAt}
      or ("queued"."created_at" = ${createdAt} and "queued"."id" < ${id}) then 1 else 0 end) as integer)`.as('ahead'),
  ];
}

/** The counts read before `job` was inserted, with `job` in them (one more of its kind); none when it is not queued. */
export function withQueuedJob(
  before: readonly Omit<QueueCount, 'job_id'>[],
  job: Pick<ProvisionerJobRow, 'id' | 'provisioner' | 'tags' | 'started_at' | 'completed_at' | 'canceled_at'>,
): QueueCount[] {
  if (job.started_at !== null || job.completed_at !== null || job.canceled_at !== null) return [];
  const ofKind = (kind: Omit<QueueCount, 'job_id'>) => kind.provisioner === job.provisioner && kind.tags === job.tags;
  const counts = before.map((kind) => ({ ...kind, job_id: job.id, queued: ofKind(kind) ? kind.queued + 1 : kind.queued }));
  if (!before.some(ofKind)) counts.push({ job_id: job.id, provisioner: job.provisioner, tags: job.tags, queued: 1, ahead: 0 });
  return counts;
}

/** Rows of {@link queueCountsQuery} by the job they count for. */
export function queueCountsByJob(rows: readonly QueueCount[]): Map<string, QueueCount[]> {
  const counts = new Map<string, QueueCount[]>();
  for (const row of rows) {
    const ofJob = counts.get(row.job_id);
    if (ofJob) ofJob.push(row);
    else counts.set(row.job_id, [row]);
  }
  return counts;
}

/** The queued jobs of an organization. */
function queue(db: Kysely<Database>, organizationId: string) {
  return db.selectFrom('provisioner_jobs').where('organization_id', '=', organizationId).where(isQueued('provisioner_jobs'));
}

/** A provisioner daemon as the queue sees it: which job types it runs, with which tags. */
export interface JobTaker {
  readonly workerId: string;
  readonly provisioners: readonly string[];
  /** The daemon's tags in canonical form (`normalizeTags`). */
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * The update that claims the oldest queued job of the organization that the daemon may run, in one
 * statement, returning it claimed; undefined when the taker runs no provisioner. "May run" is the
 * rule of `daemonTakesJob`, here in SQL: the daemon carries every tag of the job, and the job is
 * untagged (nothing beyond `scope` and `owner`) exactly when the daemon is. On PostgreSQL the
 * candidate row is locked with SKIP LOCKED, so concurrent daemons and replicas each take a
 * different job instead of racing for the first; SQLite has one writer.
 */
export function claimStatement(db: Kysely<Database>, dialect: DialectName, organizationId: string, taker: JobTaker, now: string) {
  if (taker.provisioners.length === 0) return undefined;
  const daemonTags = JSON.stringify(taker.tags);
  const daemonUntagged = Object.keys(taker.tags).every((key) => key === 'scope' || key === 'owner');
  // On PostgreSQL the rule is one CASE, not two conditions: the planner has no statistics on these
  // expressions and estimates each condition at its default (1% for `<@`, 0.5% for `=`), so it
  // expected almost no queued job to match and read and sorted the whole queue on every claim, a
  // cost that grew with the queue. A CASE is estimated at one half, so it walks
  // `provisioner_jobs_queued` in order and stops at the first job that matches.
  const taggedAlike =
    dialect === 'postgres'
      ? sql<SqlBool>`case when tags::jsonb <@ ${daemonTags}::jsonb then ((tags::jsonb - 'scope' - 'owner') = '{}'::jsonb) = ${daemonUntagged} else false end`
      : sql<SqlBool>`not exists (select 1 from json_each(provisioner_jobs.tags) as job_tag where job_tag.value is not (select daemon_tag.value from json_each(${daemonTags}) as daemon_tag where daemon_tag.key = job_tag.key)) and (not exists (select 1 from json_each(provisioner_jobs.tags) as job_tag where job_tag.key not in ('scope', 'owner'))) = ${daemonUntagged ? 1 : 0}`;
  const next = queue(db, organizationId)
    .select('id')
    .where('provisioner', 'in', taker.provisioners)
    .where(taggedAlike)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked());
  return db
    .updateTable('provisioner_jobs')
    .set({ started_at: now, updated_at: now, worker_id: taker.workerId })
    .where('id', '=', next)
    .where('started_at', 'is', null)
    .returningAll();
}

/**
 * Which provisioner daemons count as alive: those heard from since `seenSince` (a heartbeat to any
 * replica refreshes `last_seen_at`), and those connected to this process right now.
 */
export interface DaemonLiveness {
  readonly seenSince: string;
  readonly connectedIds: readonly string[];
}

/** How a cancel treats a started job: which daemons count as alive, and log lines for one that ends without its daemon. */
export interface JobCancellation {
  readonly live: DaemonLiveness;
  readonly orphanLines: readonly string[];
}

/** Whether the job's worker is a daemon that counts as alive. */
function heldByLiveDaemon(eb: ExpressionBuilder<Database, 'provisioner_jobs'>, live: DaemonLiveness): Expression<SqlBool> {
  const seen = eb.exists(
    eb
      .selectFrom('provisioner_daemons as live')
      .select('live.id')
      .whereRef('live.id', '=', 'provisioner_jobs.worker_id')
      .where('live.last_seen_at', '>=', live.seenSince),
  );
  return live.connectedIds.length === 0 ? seen : eb.or([eb('provisioner_jobs.worker_id', 'in', [...live.connectedIds]), seen]);
}

/**
 * Marks a job canceled. One that no daemon has taken, or whose daemon is no longer alive (nobody
 * would ever report it), ends at once; a running one is `canceling` until its daemon reports.
 * Finished or already canceled jobs are left as they are. Returns whether the job ended here
 * although a daemon had started it, so the caller can say why in its logs.
 */
export async function cancelJob(db: Kysely<Database>, jobId: string, now: string, live: DaemonLiveness): Promise<boolean> {
  const result = await db
    .updateTable('provisioner_jobs')
    .set((eb) => ({
      canceled_at: now,
      updated_at: now,
      completed_at: eb
        .case()
        .when('started_at', 'is', null)
        .then(now)
        .when(heldByLiveDaemon(eb, live))
        .then(eb.ref('completed_at'))
        .else(now)
        .end(),
    }))
    .where('id', '=', jobId)
    .where('completed_at', 'is', null)
    .where('canceled_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return false;
  const after = await db.selectFrom('provisioner_jobs').select(['started_at', 'completed_at']).where('id', '=', jobId).executeTakeFirst();
  return after?.started_at != null && after.completed_at != null;
}

/** Appends log lines to a job and returns the ids they got, in order. */
export async function insertJobLogs(db: Kysely<Database>, jobId: string, logs: readonly JobLogLine[]): Promise<number[]> {
  if (logs.length === 0) return [];
  const rows = await db
    .insertInto('provisioner_job_logs')
    .values(logs.map((log) => ({ ...log, job_id: jobId })))
    .returning('id')
    .execute();
  return rows.map((row) => Number(row.id));
}

/** Appends log lines to a job and marks it as heard from, all or nothing. */
export async function appendJobLogs(
  db: Kysely<Database>,
  dialect: DialectName,
  jobId: string,
  logs: readonly JobLogLine[],
  now: string,
): Promise<void> {
  await writeTogether(db, dialect, [
    ...jobLogWrites(jobId, logs),
    (q) => q.updateTable('provisioner_jobs').set({ updated_at: now }).where('id', '=', jobId),
  ]);
}

/** The write that stores a job's log lines, for a group of writes; none for no lines. */
export function jobLogWrites(jobId: string, logs: readonly JobLogLine[]): Write[] {
  if (logs.length === 0) return [];
  return [(q) => q.insertInto('provisioner_job_logs').values(logs.map((log) => ({ ...log, job_id: jobId })))];
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

/** The resources of jobs, ordered by name. */
export async function listResourcesOfJobs(db: Kysely<Database>, jobIds: readonly string[]): Promise<WorkspaceResourceRow[]> {
  return (await resourcesOfJobsQuery(db, jobIds)?.execute()) ?? [];
}

/** The select of {@link listResourcesOfJobs}; undefined when there is nothing to look up. */
export function resourcesOfJobsQuery(db: Kysely<Database>, jobIds: readonly string[]) {
  return jobIds.length === 0
    ? undefined
    : db.selectFrom('workspace_resources').selectAll().where('job_id', 'in', inList(jobIds)).orderBy('name').orderBy('transition');
}

/** Which jobs of an organization a job list shows. */
export interface JobListFilter {
  readonly ids?: readonly string[] | undefined;
  /** Statuses as the API names them (derived from the timestamps); `unknown` matches nothing. */
  readonly statuses?: readonly string[] | undefined;
  /** Tags every listed job has with these values. */
  readonly tags?: Readonly<Record<string, string>> | undefined;
  readonly limit: number;
}

/** The SQL form of each job status, as `jobStatus()` derives it. */
function statusCondition(eb: ExpressionBuilder<Database, 'provisioner_jobs'>, status: string): Expression<SqlBool> {
  const clean = [eb('error', '=', ''), eb('completed_at', 'is', null)];
  switch (status) {
    case 'failed':
      return eb('error', '<>', '');
    case 'succeeded':
      return eb.and([eb('error', '=', ''), eb('completed_at', 'is not', null), eb('canceled_at', 'is', null)]);
    case 'canceled':
      return eb.and([eb('error', '=', ''), eb('completed_at', 'is not', null), eb('canceled_at', 'is not', null)]);
    case 'canceling':
      return eb.and([...clean, eb('canceled_at', 'is not', null)]);
    case 'running':
      return eb.and([...clean, eb('canceled_at', 'is', null), eb('started_at', 'is not', null)]);
    case 'pending':
      return eb.and([...clean, eb('canceled_at', 'is', null), eb('started_at', 'is', null)]);
    default:
      return eb.lit(false);
  }
}

/** An organization's jobs that pass `filter`, newest first, filtered and limited in SQL. */
export async function listJobs(
  db: Kysely<Database>,
  dialect: DialectName,
  organizationId: string,
  filter: JobListFilter,
): Promise<ProvisionerJobRow[]> {
  let query = db.selectFrom('provisioner_jobs').selectAll().where('organization_id', '=', organizationId);
  if (filter.ids && filter.ids.length > 0) query = query.where('id', 'in', [...filter.ids]);
  const statuses = filter.statuses ?? [];
  if (statuses.length > 0) query = query.where((eb) => eb.or(statuses.map((status) => statusCondition(eb, status))));
  for (const [key, value] of Object.entries(filter.tags ?? {})) {
    query = query.where(
      dialect === 'postgres'
        ? sql<SqlBool>`(CAST(tags AS jsonb) ->> ${key}) = ${value}`
        : sql<SqlBool>`EXISTS (SELECT 1 FROM json_each(tags) AS t WHERE t.key = ${key} AND t.type = 'text' AND t.value = ${value})`,
    );
  }
  query = query.orderBy('created_at', 'desc').orderBy('id', 'desc');
  if (filter.limit > 0) query = query.limit(filter.limit);
  return query.execute();
}

/** A job's last log stage, or undefined when it has logged nothing. */
export async function lastLogStage(db: Kysely<Database>, jobId: string): Promise<string | undefined> {
  const last = await db
    .selectFrom('provisioner_job_logs')
    .select('stage')
    .where('job_id', '=', jobId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return last?.stage;
}

/** A job that stopped making progress, with what the reaper says about it. */
export interface StalledJob {
  readonly id: string;
  readonly started_at: string | null;
  readonly updated_at: string;
  readonly worker_id: string | null;
  /** The name of the daemon that holds it, if that daemon has a row. */
  readonly worker_name: string | null;
  /** The workspace of a build job. */
  readonly workspace_id: string | null;
}

/** When jobs count as stalled: each kind by the time of its last update. */
export interface StallCutoffs {
  /** Running jobs whose daemon is alive but silent about them. */
  readonly hungBefore: string;
  /** Running jobs whose daemon is no longer alive. */
  readonly orphanedBefore: string;
  /** Jobs no daemon took. */
  readonly staleBefore: string;
}

/** A stalled job seen by the reaper: 1 in `worker_alive` when its daemon still counts as alive (hung, not orphaned). */
export type ReapableJob = StalledJob & { readonly worker_alive: number };

function stalledJobs(db: Kysely<Database>) {
  return db
    .selectFrom('provisioner_jobs')
    .leftJoin('provisioner_daemons as d', 'd.id', 'provisioner_jobs.worker_id')
    .leftJoin('workspace_builds as b', 'b.job_id', 'provisioner_jobs.id')
    .select(['provisioner_jobs.id', 'provisioner_jobs.started_at', 'provisioner_jobs.updated_at', 'provisioner_jobs.worker_id'])
    .select(['d.name as worker_name', 'b.workspace_id'])
    .where('provisioner_jobs.completed_at', 'is', null);
}

/**
 * Jobs that stopped making progress: started ones not updated since `hungBefore`, or since
 * `orphanedBefore` when their daemon is no longer alive; queued ones not updated since `staleBefore`.
 */
export async function listStalledJobs(
  db: Kysely<Database>,
  cutoffs: StallCutoffs,
  live: DaemonLiveness,
  limit: number,
): Promise<ReapableJob[]> {
  const rows = await stalledJobs(db)
    .select((eb) => eb.case().when(heldByLiveDaemon(eb, live)).then(1).else(0).end().as('worker_alive'))
    .where((eb) =>
      eb.or([
        eb.and([eb('provisioner_jobs.started_at', 'is not', null), eb('provisioner_jobs.updated_at', '<', cutoffs.hungBefore)]),
        eb.and([
          eb('provisioner_jobs.started_at', 'is not', null),
          eb('provisioner_jobs.updated_at', '<', cutoffs.orphanedBefore),
          eb.not(heldByLiveDaemon(eb, live)),
        ]),
        eb.and([eb('provisioner_jobs.started_at', 'is', null), eb('provisioner_jobs.updated_at', '<', cutoffs.staleBefore)]),
      ]),
    )
    .orderBy('provisioner_jobs.updated_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, worker_alive: Number(row.worker_alive) }));
}

/**
 * Started, unfinished jobs held by daemons whose ids begin with `workerIdPrefix` (hex digits and
 * dashes only): the built-in daemons of one replica.
 */
export async function listOpenJobsOfWorkers(db: Kysely<Database>, workerIdPrefix: string, limit: number): Promise<StalledJob[]> {
  if (!/^[0-9a-f-]+$/.test(workerIdPrefix)) throw new Error(`"${workerIdPrefix}" is not a daemon id prefix`);
  return stalledJobs(db)
    .where('provisioner_jobs.started_at', 'is not', null)
    .where('provisioner_jobs.worker_id', 'like', `${workerIdPrefix}%`)
    .orderBy('provisioner_jobs.updated_at')
    .limit(limit)
    .execute();
}

/** Ends a job that has not finished yet with an outcome; returns whether it was still open. */
export async function finishJob(
  db: Kysely<Database>,
  jobId: string,
  now: string,
  outcome: { readonly error: string; readonly error_code: string },
): Promise<boolean> {
  const result = await db
    .updateTable('provisioner_jobs')
    .set({ completed_at: now, updated_at: now, error: outcome.error, error_code: outcome.error_code })
    .where('id', '=', jobId)
    .where('completed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** What job answers show besides the job rows: daemons and queues of their organizations, their versions' templates. */
export interface JobRelations {
  readonly daemons: readonly ProvisionerDaemonRow[];
  /** The queue counts of each job still queued, by job id (see {@link queueCountsQuery}). */
  readonly queued: ReadonlyMap<string, readonly QueueCount[]>;
  readonly versions: ReadonlyMap<
    string,
    {
      readonly version_name: string;
      readonly template_id: string | null;
      readonly template_name: string | null;
      readonly template_display_name: string | null;
      readonly template_icon: string | null;
    }
  >;
  /** The builds that build jobs carry out, with their workspace, by build id. */
  readonly builds: ReadonlyMap<
    string,
    { readonly workspace_id: string; readonly workspace_name: string; readonly template_version_id: string }
  >;
}

/** Related rows a caller has already read, which {@link jobRelations} then does not read again. */
export type KnownJobRelations = Partial<Pick<JobRelations, 'versions' | 'builds'>> & {
  /** The daemons of these organizations, all of them, read already. */
  readonly daemonsOf?: { readonly organizationIds: ReadonlySet<string>; readonly daemons: readonly ProvisionerDaemonRow[] } | undefined;
  /** The queue counts of these jobs, read with them (see {@link queueCountsQuery}): none for a job that was not queued. */
  readonly queuedOf?: { readonly jobIds: ReadonlySet<string>; readonly queued: ReadonlyMap<string, readonly QueueCount[]> } | undefined;
};

/**
 * The related rows of some jobs, in a fixed number of queries; builds, versions, daemons and queue
 * counts found in `known` are taken from there.
 */
export async function jobRelations(
  db: Kysely<Database>,
  dialect: DialectName,
  rows: readonly ProvisionerJobRow[],
  known: KnownJobRelations = {},
): Promise<JobRelations> {
  const organizationIds = [...new Set(rows.map((row) => row.organization_id))];
  const inputs = rows.map((row) => parseJson<{ template_version_id?: unknown; workspace_build_id?: unknown }>(row.input, {}));
  const buildIds = [
    ...new Set(inputs.flatMap((input) => (typeof input.workspace_build_id === 'string' ? [input.workspace_build_id] : []))),
  ];
  const knownBuilds = buildIds.flatMap((id) => {
    const build = known.builds?.get(id);
    return build ? [{ id, ...build }] : [];
  });
  const unknownBuildIds = buildIds.filter((id) => !known.builds?.has(id));
  // A build job's input names only its build: the version and the workspace come through the build.
  const builds = [
    ...knownBuilds,
    ...(unknownBuildIds.length === 0
      ? []
      : await db
          .selectFrom('workspace_builds as b')
          .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
          .select(['b.id as id', 'b.template_version_id as template_version_id', 'w.id as workspace_id', 'w.name as workspace_name'])
          .where('b.id', 'in', unknownBuildIds)
          .execute()),
  ];
  const versionIds = [
    ...new Set([
      ...inputs.flatMap((input) =>
        typeof input.template_version_id === 'string' && input.template_version_id !== '' ? [input.template_version_id] : [],
      ),
      ...builds.map((build) => build.template_version_id),
    ]),
  ];
  const knownVersions = versionIds.flatMap((id) => {
    const version = known.versions?.get(id);
    return version ? [{ id, ...version }] : [];
  });
  const unknownVersionIds = versionIds.filter((id) => !known.versions?.has(id));
  const queuedJobIds = rows.filter((row) => row.started_at === null && row.completed_at === null).map((row) => row.id);
  const { daemonsOf, queuedOf } = known;
  const knownDaemons = daemonsOf && organizationIds.every((id) => daemonsOf.organizationIds.has(id)) ? daemonsOf.daemons : undefined;
  const knownQueues = queuedOf && queuedJobIds.every((id) => queuedOf.jobIds.has(id)) ? queuedOf.queued : undefined;
  // Queue positions are shown for jobs still waiting; a page with none needs no queue.
  const read = await readTogether(db, dialect, {
    daemons: knownDaemons ? undefined : daemonsOfOrganizationsQuery(db, organizationIds),
    queued: knownQueues ? undefined : queueCountsQuery(db, queuedJobIds),
    versions:
      unknownVersionIds.length === 0
        ? undefined
        : db
            .selectFrom('template_versions as v')
            .leftJoin('templates as t', 't.id', 'v.template_id')
            .select(['v.id as id', 'v.name as version_name', 't.id as template_id', 't.name as template_name'])
            .select(['t.display_name as template_display_name', 't.icon as template_icon'])
            .where('v.id', 'in', inList(unknownVersionIds)),
  });
  const daemons = knownDaemons ?? read.daemons;
  const queued = knownQueues ?? queueCountsByJob(read.queued);
  const versions = read.versions;
  return {
    daemons,
    queued,
    versions: new Map([...knownVersions, ...versions].map((v) => [v.id, v])),
    builds: new Map(builds.map((b) => [b.id, b])),
  };
}
