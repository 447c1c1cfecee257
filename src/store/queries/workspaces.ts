import { sql, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import type { Database } from '../schema.js';
import type { DialectName } from '../database.js';
import { joined } from '../joined-rows.js';
import { readTogether } from '../read-together.js';
import { writeTogether, writeTogetherReading } from '../write-together.js';
import {
  queueCountsBeforeQuery,
  queueCountsByJob,
  queueCountsQuery,
  withQueuedJob,
  type QueueCount,
  jobsByIdsQuery,
  listResourcesOfJobs,
  resourcesOfJobsQuery,
  type ProvisionerJobRow,
  type WorkspaceResourceRow,
} from './provisioner-jobs.js';
import { daemonsOfOrganizationsQuery, type ProvisionerDaemonRow } from './provisioner-daemons.js';
import type { TemplateRow } from './templates.js';
import { appStatusesOfJobsQuery, latestOfEachWorkspace, newestAppStatusesQuery, type AppStatusRow } from './workspace-app-statuses.js';
import { logSourcesOfJobsQuery, type AgentLogSourceRow } from './workspace-agents.js';
import { inList } from '../in-list.js';
import type { WorkspaceAgentRow, WorkspaceBuildRow, WorkspaceRow } from './workspace-rows.js';

// Still named from here, where the layers above and the other queries have always found them.
export type { WorkspaceAgentRow, WorkspaceBuildRow, WorkspaceRow } from './workspace-rows.js';

/** One workspace by id, deleted or not. */
export async function getWorkspaceById(db: Kysely<Database>, id: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Workspaces by id (deleted or not), in no particular order. */
/** Workspaces by id, deleted ones included, each with its newest build: one statement, an outer join. */
export async function getWorkspacesWithLatestBuilds(db: Kysely<Database>, ids: readonly string[]): Promise<WorkspaceWithLatestBuild[]> {
  if (ids.length === 0) return [];
  const { workspace, build } = joined;
  const { rows } = await sql<Record<string, unknown>>`select ${workspace.columns}, ${build.columns}
    from "workspaces" as "w"
    left join "workspace_builds" as "b" on "b"."workspace_id" = "w"."id" and not exists (
      select 1 from "workspace_builds" as "later" where "later"."workspace_id" = "w"."id" and "later"."build_number" > "b"."build_number")
    where "w"."id" in (${sql.join(inList(ids))})`.execute(db);
  return rows.flatMap((row) => {
    const found = workspace.take(row);
    return found ? [{ workspace: found, latestBuild: build.take(row) }] : [];
  });
}

/** A workspace's newest build with its job, in one statement; undefined when it has no build. */
export async function latestBuildWithJob(
  db: Kysely<Database>,
  workspaceId: string,
): Promise<{ build: WorkspaceBuildRow; job: ProvisionerJobRow | undefined } | undefined> {
  const { build, job } = joined;
  const { rows } = await sql<Record<string, unknown>>`select ${build.columns}, ${job.columns}
    from "workspace_builds" as "b"
    left join "provisioner_jobs" as "j" on "j"."id" = "b"."job_id"
    where "b"."workspace_id" = ${workspaceId}
    order by "b"."build_number" desc
    limit 1`.execute(db);
  const row = rows[0];
  const found = row && build.take(row);
  return found && { build: found, job: job.take(row) };
}

/** A workspace with its latest build, if it has any. */
export interface WorkspaceWithLatestBuild {
  readonly workspace: WorkspaceRow;
  readonly latestBuild: WorkspaceBuildRow | undefined;
}

/** A user's workspace by name: the live one, else (when asked) the most recently deleted. */
export async function getWorkspaceByOwnerAndName(
  db: Kysely<Database>,
  ownerId: string,
  name: string,
  includeDeleted: boolean,
): Promise<WorkspaceRow | undefined> {
  let query = db
    .selectFrom('workspaces')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase());
  if (!includeDeleted) query = query.where('deleted', '=', 0);
  return query.orderBy('deleted').orderBy('updated_at', 'desc').executeTakeFirst();
}

/** The newest build of each of these workspaces: those of their builds that no later build follows. */
export async function latestBuilds(db: Kysely<Database>, workspaceIds: readonly string[]): Promise<Map<string, WorkspaceBuildRow>> {
  if (workspaceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('workspace_builds as b')
    .selectAll('b')
    .where('b.workspace_id', 'in', inList(workspaceIds))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('workspace_builds as later')
            .select('later.id')
            .whereRef('later.workspace_id', '=', 'b.workspace_id')
            .whereRef('later.build_number', '>', 'b.build_number'),
        ),
      ),
    )
    .execute();
  return new Map(rows.map((row) => [row.workspace_id, row]));
}

/** A workspace's builds, newest first. */
export async function listBuilds(db: Kysely<Database>, workspaceId: string): Promise<WorkspaceBuildRow[]> {
  return db.selectFrom('workspace_builds').selectAll().where('workspace_id', '=', workspaceId).orderBy('build_number', 'desc').execute();
}

export async function getBuildById(db: Kysely<Database>, id: string): Promise<WorkspaceBuildRow | undefined> {
  return db.selectFrom('workspace_builds').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getBuildByJobId(db: Kysely<Database>, jobId: string): Promise<WorkspaceBuildRow | undefined> {
  return db.selectFrom('workspace_builds').selectAll().where('job_id', '=', jobId).executeTakeFirst();
}

/** The agents of these build jobs, by name; undefined when there is nothing to look up. */
function agentsOfJobsQuery(db: Kysely<Database>, jobIds: readonly string[]) {
  return jobIds.length === 0
    ? undefined
    : db
        .selectFrom('workspace_agents as a')
        .innerJoin('workspace_resources as r', 'r.id', 'a.resource_id')
        .selectAll('a')
        .where('r.job_id', 'in', inList(jobIds))
        .orderBy('a.name');
}

/** The agents of these resources, by name. */
export async function listAgentsOfResources(db: Kysely<Database>, resourceIds: readonly string[]): Promise<WorkspaceAgentRow[]> {
  if (resourceIds.length === 0) return [];
  return db.selectFrom('workspace_agents').selectAll().where('resource_id', 'in', resourceIds).orderBy('name').execute();
}

/** A build and its job as one insert: the orphan flag completes the job and deletes the workspace at once. */
export interface BuildInsert {
  readonly build: WorkspaceBuildRow;
  readonly job: ProvisionerJobRow;
  /** An orphan delete: nothing is destroyed, so the job is done and the workspace gone in the same step. */
  readonly orphan: boolean;
}

/** What a new build's answer needs that only the database knows: its organization's queue, and the names of the workspace's owner and the build's initiator. */
export interface NewBuildReads {
  readonly queue: OrganizationQueue;
  readonly users: readonly UserName[];
}

/**
 * Inserts a workspace's next build with its job (and, for an orphan delete, its completion), all or
 * nothing. With `read`, also gives what the build's answer needs, read in the same round trip (see
 * {@link insertWorkspace}).
 */
export async function insertBuild(
  db: Kysely<Database>,
  dialect: DialectName,
  workspace: WorkspaceRow,
  insert: BuildInsert,
  read: boolean,
): Promise<NewBuildReads | undefined> {
  const { build, orphan } = insert;
  const job = insertedJob(insert);
  const writes = [
    (q: QueryCreator<Database>) => q.insertInto('provisioner_jobs').values(job),
    (q: QueryCreator<Database>) => q.insertInto('workspace_builds').values(build),
    (q: QueryCreator<Database>) =>
      q
        .updateTable('workspaces')
        .set({ updated_at: build.created_at, ...(orphan ? { deleted: 1 } : {}) })
        .where('id', '=', workspace.id),
  ];
  if (!read) {
    await writeTogether(db, dialect, writes);
    return undefined;
  }
  const userIds = unique([workspace.owner_id, build.initiator_id]);
  const before = await writeTogetherReading(db, dialect, writes, {
    ...queueReads(db, job),
    users: userNamesQuery(db, userIds),
  });
  return { queue: queueWithNewJob(before, job), users: before.users };
}

/** The job row a build insert writes: an orphan delete's is done as it is made. */
export function insertedJob(insert: BuildInsert): ProvisionerJobRow {
  const at = insert.build.created_at;
  return insert.orphan ? { ...insert.job, started_at: at, completed_at: at } : insert.job;
}

/** An organization's provisioner daemons and its queue's counts for a new job: what the job's place is counted from. */
export interface OrganizationQueue {
  readonly daemons: readonly ProvisionerDaemonRow[];
  /** None when the job is not queued. */
  readonly counts: readonly QueueCount[];
}

/**
 * Inserts a new workspace with its first build and that build's job, all or nothing. With
 * `readQueue`, also gives the organization's queue with the new job in it, read in the same round
 * trip: as it was before the insert, the new job then put in its place.
 */
export async function insertWorkspace(
  db: Kysely<Database>,
  dialect: DialectName,
  workspace: WorkspaceRow,
  first: BuildInsert,
  readQueue: boolean,
): Promise<OrganizationQueue | undefined> {
  const writes = [
    (q: QueryCreator<Database>) => q.insertInto('workspaces').values(workspace),
    (q: QueryCreator<Database>) => q.insertInto('provisioner_jobs').values(first.job),
    (q: QueryCreator<Database>) => q.insertInto('workspace_builds').values(first.build),
  ];
  if (!readQueue) {
    await writeTogether(db, dialect, writes);
    return undefined;
  }
  const before = await writeTogetherReading(db, dialect, writes, queueReads(db, first.job));
  return queueWithNewJob(before, first.job);
}

/** The reads of a new job's organization's daemons and of its queue's counts before the job. */
function queueReads(db: Kysely<Database>, job: ProvisionerJobRow) {
  return { daemons: daemonsOfOrganizationsQuery(db, [job.organization_id]), counts: queueCountsBeforeQuery(db, job) };
}

/** The queue as counted before inserting `job`, with `job` in it. */
function queueWithNewJob(
  before: { readonly daemons: readonly ProvisionerDaemonRow[]; readonly counts: readonly Omit<QueueCount, 'job_id'>[] },
  job: ProvisionerJobRow,
): OrganizationQueue {
  return { daemons: before.daemons, counts: withQueuedJob(before.counts, job) };
}

/** Changes a build's deadline (extend, TTL off, activity bump). */
export async function setBuildDeadline(db: Kysely<Database>, buildId: string, deadline: string | null): Promise<void> {
  await db.updateTable('workspace_builds').set({ deadline }).where('id', '=', buildId).execute();
}

/** Replaces the provisioner state a build recorded (the state the next build starts from, when it is the latest). */
export async function setBuildProvisionerState(db: Kysely<Database>, buildId: string, state: Buffer): Promise<void> {
  await db.updateTable('workspace_builds').set({ provisioner_state: state }).where('id', '=', buildId).execute();
}

/** A page of a workspace's builds, newest first; undefined when `afterBuildNumber` names no build. */
export async function listBuildsPage(
  db: Kysely<Database>,
  workspaceId: string,
  page: {
    readonly since?: string | undefined;
    readonly afterId?: string | undefined;
    readonly limit: number;
    readonly offset: number;
    readonly sqlite: boolean;
  },
): Promise<WorkspaceBuildRow[] | undefined> {
  let query = db.selectFrom('workspace_builds').selectAll().where('workspace_id', '=', workspaceId);
  if (page.since) query = query.where('created_at', '>=', page.since);
  if (page.afterId) {
    const after = await query.where('id', '=', page.afterId).select('build_number').executeTakeFirst();
    if (!after) return undefined;
    query = query.where('build_number', '<', after.build_number);
  }
  query = query.orderBy('build_number', 'desc');
  if (page.limit > 0) query = query.limit(page.limit);
  // SQLite accepts OFFSET only after a LIMIT; -1 there means no limit.
  if (page.offset > 0) query = query.$if(page.limit <= 0 && page.sqlite, (qb) => qb.limit(-1)).offset(page.offset);
  return query.execute();
}

/** A workspace's build by its number. */
export async function getBuildByNumber(
  db: Kysely<Database>,
  workspaceId: string,
  buildNumber: number,
): Promise<WorkspaceBuildRow | undefined> {
  return db
    .selectFrom('workspace_builds')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('build_number', '=', buildNumber)
    .executeTakeFirst();
}

/** A user as workspace and build answers name them. */
export interface UserName {
  readonly id: string;
  readonly username: string;
  readonly avatar_url: string;
}

/** The rows a page of workspace or build answers shows besides the workspaces and builds themselves. */
export interface WorkspaceDetails {
  /** Owners and build initiators. */
  readonly users: ReadonlyMap<string, UserName>;
  readonly versions: ReadonlyMap<string, { readonly id: string; readonly name: string; readonly template_id: string | null }>;
  readonly jobs: ReadonlyMap<string, ProvisionerJobRow>;
  /** Each build job's resources, by name. */
  readonly resources: ReadonlyMap<string, readonly WorkspaceResourceRow[]>;
  /** Each resource's agents, by name. */
  readonly agents: ReadonlyMap<string, readonly WorkspaceAgentRow[]>;
  /** Each agent's log sources, oldest first. */
  readonly logSources: ReadonlyMap<string, readonly AgentLogSourceRow[]>;
  /** Each agent's app statuses, newest first. */
  readonly appStatuses: ReadonlyMap<string, readonly AppStatusRow[]>;
  readonly templates: ReadonlyMap<string, TemplateRow>;
  readonly organizationNames: ReadonlyMap<string, string>;
  /** Each workspace's newest app status, across its builds. */
  readonly latestAppStatuses: ReadonlyMap<string, AppStatusRow>;
  /** Every provisioner daemon of the workspaces' organizations, for the views of the jobs; undefined when not read. */
  readonly daemons: readonly ProvisionerDaemonRow[] | undefined;
  /** The queue counts of the jobs still queued, by job id (see `queueCountsQuery`); undefined when not read. */
  readonly queued: ReadonlyMap<string, readonly QueueCount[]> | undefined;
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const list = groups.get(key(row));
    if (list) list.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

const unique = (values: readonly string[]) => [...new Set(values)];

/** The names answers show of these users; undefined when there is nothing to look up. */
function userNamesQuery(db: Kysely<Database>, userIds: readonly string[]) {
  return userIds.length === 0
    ? undefined
    : db.selectFrom('users').select(['id', 'username', 'avatar_url']).where('id', 'in', inList(userIds));
}

/**
 * Everything the answers for these workspaces and builds show, in one round trip whatever the
 * number of rows (see {@link readTogether}): users, versions, jobs, resources, agents and what the
 * agents report, templates, organizations, and the organizations' provisioner daemons and queues
 * (which the jobs' views show). Agents and their reports are found through the jobs' resources within their
 * own selects, so no read waits on another.
 */
export async function listWorkspaceDetails(
  db: Kysely<Database>,
  dialect: DialectName,
  workspaces: readonly WorkspaceRow[],
  builds: readonly WorkspaceBuildRow[],
): Promise<WorkspaceDetails> {
  const userIds = unique([...builds.map((b) => b.initiator_id), ...workspaces.map((w) => w.owner_id)]);
  const versionIds = unique(builds.map((b) => b.template_version_id));
  const jobIds = unique(builds.map((b) => b.job_id));
  const templateIds = unique(workspaces.map((w) => w.template_id));
  const organizationIds = unique(workspaces.map((w) => w.organization_id));
  const read = await readTogether(db, dialect, {
    users: userNamesQuery(db, userIds),
    versions:
      versionIds.length === 0
        ? undefined
        : db.selectFrom('template_versions').select(['id', 'name', 'template_id']).where('id', 'in', inList(versionIds)),
    jobs: jobsByIdsQuery(db, jobIds),
    resources: resourcesOfJobsQuery(db, jobIds),
    templates: templateIds.length === 0 ? undefined : db.selectFrom('templates').selectAll().where('id', 'in', inList(templateIds)),
    organizations:
      organizationIds.length === 0
        ? undefined
        : db.selectFrom('organizations').select(['id', 'name']).where('id', 'in', inList(organizationIds)),
    newestStatuses: newestAppStatusesQuery(
      db,
      workspaces.map((w) => w.id),
    ),
    agents: agentsOfJobsQuery(db, jobIds),
    sources: logSourcesOfJobsQuery(db, jobIds),
    statuses: appStatusesOfJobsQuery(db, jobIds),
    daemons: daemonsOfOrganizationsQuery(db, organizationIds),
    // Where a read is a round trip: on SQLite the job views read a queue themselves when they need it.
    queued: dialect === 'postgres' ? queueCountsQuery(db, jobIds) : undefined,
  });
  return {
    users: new Map(read.users.map((u) => [u.id, u])),
    versions: new Map(read.versions.map((v) => [v.id, v])),
    jobs: new Map(read.jobs.map((j) => [j.id, j])),
    resources: groupBy(read.resources, (r) => r.job_id),
    agents: groupBy(read.agents, (a) => a.resource_id),
    logSources: groupBy(read.sources, (s) => s.agent_id),
    appStatuses: groupBy(read.statuses, (s) => s.agent_id),
    templates: new Map(read.templates.map((t) => [t.id, t])),
    organizationNames: new Map(read.organizations.map((o) => [o.id, o.name])),
    latestAppStatuses: latestOfEachWorkspace(read.newestStatuses),
    daemons: read.daemons,
    queued: dialect === 'postgres' ? queueCountsByJob(read.queued) : undefined,
  };
}

/** The agents of a workspace's latest build, by name. */
export async function listLatestBuildAgents(db: Kysely<Database>, workspaceId: string): Promise<WorkspaceAgentRow[]> {
  const build = (await latestBuilds(db, [workspaceId])).get(workspaceId);
  return build ? listBuildAgents(db, build) : [];
}

/** The agents of one build, by name. */
export async function listBuildAgents(db: Kysely<Database>, build: Pick<WorkspaceBuildRow, 'job_id'>): Promise<WorkspaceAgentRow[]> {
  const resources = await listResourcesOfJobs(db, [build.job_id]);
  return listAgentsOfResources(
    db,
    resources.map((r) => r.id),
  );
}

/** How the scripts of these agents ran, oldest first. */
export async function listScriptTimings(
  db: Kysely<Database>,
  agentIds: readonly string[],
): Promise<Selectable<Database['workspace_agent_script_timings']>[]> {
  if (agentIds.length === 0) return [];
  return db.selectFrom('workspace_agent_script_timings').selectAll().where('agent_id', 'in', agentIds).orderBy('started_at').execute();
}
