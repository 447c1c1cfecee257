import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { DialectName } from '../database.js';
import type { ListFilter } from '../../rbac/index.js';
import { allowedRows } from '../authz-filter.js';
import type {
  Database,
  WorkspaceAgentLogSourceTable,
  WorkspaceAgentLogTable,
  WorkspaceAgentScriptTimingTable,
  WorkspaceAgentTable,
} from '../schema.js';
import type { WorkspaceBuildRow, WorkspaceRow } from './workspace-rows.js';
import type { WorkspaceResourceRow } from './provisioner-jobs.js';
import { inList } from '../in-list.js';

export type AgentRow = Selectable<WorkspaceAgentTable>;
export type AgentLogRow = Selectable<WorkspaceAgentLogTable>;
export type AgentLogSourceRow = Selectable<WorkspaceAgentLogSourceTable>;
export type AgentScriptTimingRow = Selectable<WorkspaceAgentScriptTimingTable>;

/** The fields of its own row that an agent reports: connection, startup, lifecycle, app health, stats. */
export type AgentReport = Partial<
  Pick<
    AgentRow,
    | 'first_connected_at'
    | 'last_connected_at'
    | 'disconnected_at'
    | 'api_version'
    | 'relay_url'
    | 'updated_at'
    | 'version'
    | 'expanded_directory'
    | 'subsystems'
    | 'lifecycle_state'
    | 'started_at'
    | 'ready_at'
    | 'app_health'
    | 'last_stats'
    | 'last_stats_at'
  >
>;

/**
 * One line of an agent's log as stored, without what the batch gives all its lines: its time,
 * level and output, in the order the insert reads them from the batch's JSON.
 */
export type AgentLogLine = readonly [created_at: string, level: string, output: string];

/** A batch of an agent's log lines, and what storing it may add. */
export interface AgentLogBatch {
  /** The source of every line of the batch. */
  readonly sourceId: string;
  readonly lines: readonly AgentLogLine[];
  /** Bytes of output in `lines`, counted against `maxBytes`. */
  readonly bytes: number;
  /** The most log output the agent may store, over all its batches. */
  readonly maxBytes: number;
  /** A source to record (or rename) with the lines, in the same transaction. */
  readonly source?: Omit<AgentLogSourceRow, 'agent_id'> | undefined;
}

/** What storing a batch did: stored it (after which id followers read), or refused it as over the limit. */
export type AgentLogAppendOutcome =
  | { readonly stored: true; readonly first: boolean; readonly after: number }
  | { readonly stored: false; readonly newlyOverflowed: boolean };

/** The newest agent on a cloud instance, with the job that made it and, for a workspace build's, what it belongs to. */
export interface InstanceAgent {
  readonly agent: AgentRow;
  readonly jobType: string;
  readonly organizationId: string;
  readonly owners: AgentWithOwners | undefined;
}

/** An agent with the names that identify it to people: `owner/workspace.agent`. */
export interface AgentLabel {
  readonly id: string;
  readonly agent: string;
  readonly workspace: string;
  readonly owner: string;
}

/** An agent with the resource, build and workspace it belongs to. */
export interface AgentWithOwners {
  readonly agent: AgentRow;
  readonly resource: WorkspaceResourceRow;
  readonly build: WorkspaceBuildRow;
  readonly workspace: WorkspaceRow;
}

// Every request of an agent authenticates with ownersOf, getAgentByTokenHash and
// agentBuildIsCurrent, so their queries are written out rather than built: building a kysely query
// costs more than running one this small.

/** The resource, build and workspace of an agent row; undefined when any is gone. */
async function ownersOf(db: Kysely<Database>, agent: AgentRow | undefined): Promise<AgentWithOwners | undefined> {
  if (!agent) return undefined;
  const [resource] = (await sql<WorkspaceResourceRow>`select * from workspace_resources where id = ${agent.resource_id}`.execute(db)).rows;
  if (!resource) return undefined;
  const [build] = (await sql<WorkspaceBuildRow>`select * from workspace_builds where job_id = ${resource.job_id}`.execute(db)).rows;
  if (!build) return undefined;
  const [workspace] = (await sql<WorkspaceRow>`select * from workspaces where id = ${build.workspace_id}`.execute(db)).rows;
  return workspace ? { agent, resource, build, workspace } : undefined;
}

/** The agent whose token hashes to `hash`, with what it belongs to. */
export async function getAgentByTokenHash(db: Kysely<Database>, hash: string): Promise<AgentWithOwners | undefined> {
  const [agent] = (
    await sql<AgentRow>`select * from workspace_agents where auth_token_hash = ${hash} order by created_at desc limit 1`.execute(db)
  ).rows;
  return ownersOf(db, agent);
}

/**
 * The newest agent whose cloud instance id is `instanceId` (several builds may have run on the
 * same instance), with the type of the job that created it. An empty id matches nothing.
 */
export async function getNewestAgentByInstanceId(db: Kysely<Database>, instanceId: string): Promise<InstanceAgent | undefined> {
  if (instanceId === '') return undefined;
  const row = await db
    .selectFrom('workspace_agents')
    .innerJoin('workspace_resources', 'workspace_resources.id', 'workspace_agents.resource_id')
    .innerJoin('provisioner_jobs', 'provisioner_jobs.id', 'workspace_resources.job_id')
    .leftJoin('workspace_builds', 'workspace_builds.job_id', 'workspace_resources.job_id')
    .selectAll('workspace_agents')
    .select(['provisioner_jobs.type as job_type', 'provisioner_jobs.organization_id as job_organization_id'])
    .where('workspace_agents.auth_instance_id', '=', instanceId)
    // Agents made within the same millisecond: the later job, then the later build of a workspace, wins.
    .orderBy('workspace_agents.created_at', 'desc')
    .orderBy('provisioner_jobs.created_at', 'desc')
    .orderBy('workspace_builds.build_number', 'desc')
    .executeTakeFirst();
  if (!row) return undefined;
  const { job_type: jobType, job_organization_id: organizationId, ...agent } = row;
  return { agent, jobType, organizationId, owners: jobType === 'workspace_build' ? await ownersOf(db, agent) : undefined };
}

/** An agent by id, with what it belongs to. */
export async function getAgentById(db: Kysely<Database>, id: string): Promise<AgentWithOwners | undefined> {
  return ownersOf(db, await db.selectFrom('workspace_agents').selectAll().where('id', '=', id).executeTakeFirst());
}

/** Just the agent row, as it is now. */
export async function getAgentRow(db: Kysely<Database>, id: string): Promise<AgentRow | undefined> {
  return db.selectFrom('workspace_agents').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whether `buildId` is the newest build of its workspace, and that workspace is not deleted. */
export async function isLatestLiveBuild(db: Kysely<Database>, workspaceId: string, buildId: string): Promise<boolean> {
  const workspace = await db.selectFrom('workspaces').select('deleted').where('id', '=', workspaceId).executeTakeFirst();
  if (!workspace || workspace.deleted) return false;
  const latest = await db
    .selectFrom('workspace_builds')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .orderBy('build_number', 'desc')
    .executeTakeFirst();
  return latest?.id === buildId;
}

/**
 * Whether an agent of `buildId` may still act for its workspace: its build is the latest, or the
 * latest is the stop (or delete) that is shutting it down and has not finished, so that the agent
 * can report its shutdown and stop scripts. Run on every request of an agent: see ownersOf.
 */
export async function agentBuildIsCurrent(db: Kysely<Database>, workspaceId: string, buildId: string): Promise<boolean> {
  const [workspace] = (await sql<Pick<WorkspaceRow, 'deleted'>>`select deleted from workspaces where id = ${workspaceId}`.execute(db)).rows;
  if (!workspace || workspace.deleted) return false;
  const [latest, previous] = (
    await sql<Pick<WorkspaceBuildRow, 'id' | 'transition' | 'job_id'>>`
      select id, transition, job_id from workspace_builds where workspace_id = ${workspaceId} order by build_number desc limit 2`.execute(
      db,
    )
  ).rows;
  if (latest?.id === buildId) return true;
  if (!latest || latest.transition === 'start' || previous?.id !== buildId) return false;
  const [job] = (
    await sql<{ completed_at: string | null }>`select completed_at from provisioner_jobs where id = ${latest.job_id}`.execute(db)
  ).rows;
  return job !== undefined && job.completed_at === null;
}

export async function updateAgent(db: Kysely<Database>, id: string, changes: Updateable<WorkspaceAgentTable>): Promise<void> {
  await db.updateTable('workspace_agents').set(changes).where('id', '=', id).execute();
}

/** Marks an agent disconnected, unless it has meanwhile connected to another replica than `relayUrl`. */
export async function markAgentDisconnected(db: Kysely<Database>, id: string, relayUrl: string, at: string): Promise<void> {
  await db
    .updateTable('workspace_agents')
    .set({ disconnected_at: at, relay_url: '' })
    .where('id', '=', id)
    .where('relay_url', 'in', ['', relayUrl])
    .execute();
}

export async function insertScriptTiming(db: Kysely<Database>, row: AgentScriptTimingRow): Promise<void> {
  await db.insertInto('workspace_agent_script_timings').values(row).execute();
}

/** One agent's batch of log lines, as a group of batches stores it. */
export interface AgentLogAppend {
  readonly agentId: string;
  readonly batch: AgentLogBatch;
}

/**
 * Stores a batch of an agent's logs, all or nothing, in one transaction with the check against the
 * agent's limit: a batch that would take it past the limit stores nothing and marks it overflowed,
 * and so does every later batch. Undefined when the agent is gone.
 */
export async function appendAgentLogs(
  db: Kysely<Database>,
  dialect: DialectName,
  agentId: string,
  batch: AgentLogBatch,
): Promise<AgentLogAppendOutcome | undefined> {
  return db.transaction().execute((trx) => appendInTransaction(trx, dialect, agentId, batch));
}

/**
 * Stores several batches, of one agent or of several, in one transaction, in their order: each is
 * checked against its agent's limit and stored or refused as `appendAgentLogs` would, one after
 * the other. One commit for many batches is what makes this cheaper than a transaction each.
 */
export async function appendAgentLogGroup(
  db: Kysely<Database>,
  dialect: DialectName,
  group: readonly AgentLogAppend[],
): Promise<(AgentLogAppendOutcome | undefined)[]> {
  return db.transaction().execute(async (trx) => {
    const outcomes: (AgentLogAppendOutcome | undefined)[] = [];
    for (const { agentId, batch } of group) outcomes.push(await appendInTransaction(trx, dialect, agentId, batch));
    return outcomes;
  });
}

async function appendInTransaction(
  trx: Kysely<Database>,
  dialect: DialectName,
  agentId: string,
  batch: AgentLogBatch,
): Promise<AgentLogAppendOutcome | undefined> {
  // Counting the batch and checking the limit in one statement: concurrent batches of one agent
  // cannot both pass a limit that only one of them fits in. Written out rather than built, as
  // building a query costs more than running one this small.
  const {
    rows: [counted],
  } = await sql<Pick<AgentRow, 'logs_length'>>`
    update workspace_agents set logs_length = logs_length + ${batch.bytes}
    where id = ${agentId} and logs_overflowed = 0 and logs_length + ${batch.bytes} <= ${batch.maxBytes}
    returning logs_length`.execute(trx);
  if (!counted) {
    const overflowed = await trx
      .updateTable('workspace_agents')
      .set({ logs_overflowed: 1 })
      .where('id', '=', agentId)
      .where('logs_overflowed', '=', 0)
      .returning('id')
      .executeTakeFirst();
    if (overflowed) return { stored: false, newlyOverflowed: true };
    const agent = await trx.selectFrom('workspace_agents').select('id').where('id', '=', agentId).executeTakeFirst();
    return agent ? { stored: false, newlyOverflowed: false } : undefined;
  }
  if (batch.source) await upsertLogSource(trx, { agent_id: agentId, ...batch.source });
  const first = await insertLogLines(trx, dialect, agentId, batch);
  return { stored: true, first: counted.logs_length === batch.bytes, after: first - 1 };
}

/**
 * Inserts the lines of a batch in their order with one statement that reads them from one JSON
 * parameter (a statement with a parameter per column of every line cost more to build than to
 * run), and answers the id of the first.
 */
async function insertLogLines(db: Kysely<Database>, dialect: DialectName, agentId: string, batch: AgentLogBatch): Promise<number> {
  const lines = JSON.stringify(batch.lines);
  if (dialect === 'postgres') {
    const { rows } = await sql<{ first: number }>`
      with inserted as (
        insert into workspace_agent_logs (agent_id, log_source_id, created_at, level, output)
        select ${agentId}, ${batch.sourceId}, line ->> 0, line ->> 1, line ->> 2
        from json_array_elements(${lines}::json) with ordinality as batch (line, n)
        order by n
        returning id
      )
      select min(id) as first from inserted`.execute(db);
    return Number(rows[0]?.first);
  }
  // json_each yields the elements in order, and one statement takes consecutive ids: the first is
  // the last inserted one less the others.
  const { insertId, numAffectedRows } = await sql`
    insert into workspace_agent_logs (agent_id, log_source_id, created_at, level, output)
    select ${agentId}, ${batch.sourceId}, value ->> 0, value ->> 1, value ->> 2
    from json_each(${lines})
    order by rowid`.execute(db);
  return Number(insertId) - Number(numAffectedRows) + 1;
}

/** The agents of a workspace's newest build, by name; none when it has no build. */
export async function listAgentsOfLatestBuild(db: Kysely<Database>, workspaceId: string): Promise<AgentRow[]> {
  return db
    .selectFrom('workspace_agents as a')
    .innerJoin('workspace_resources as r', 'r.id', 'a.resource_id')
    .innerJoin('workspace_builds as b', 'b.job_id', 'r.job_id')
    .selectAll('a')
    .where('b.workspace_id', '=', workspaceId)
    .where('b.build_number', '=', (eb) =>
      eb
        .selectFrom('workspace_builds as newest')
        .select((n) => n.fn.max('newest.build_number').as('n'))
        .where('newest.workspace_id', '=', workspaceId),
    )
    .orderBy('a.name')
    .execute();
}

/** `owner/workspace.agent` names of these agents, of the workspaces `filter` lets through. */
export async function listAgentLabels(db: Kysely<Database>, agentIds: readonly string[], filter: ListFilter): Promise<AgentLabel[]> {
  if (agentIds.length === 0) return [];
  return db
    .selectFrom('workspace_agents')
    .innerJoin('workspace_resources', 'workspace_resources.id', 'workspace_agents.resource_id')
    .innerJoin('workspace_builds', 'workspace_builds.job_id', 'workspace_resources.job_id')
    .innerJoin('workspaces', 'workspaces.id', 'workspace_builds.workspace_id')
    .innerJoin('users', 'users.id', 'workspaces.owner_id')
    .select(['workspace_agents.id as id', 'workspace_agents.name as agent', 'workspaces.name as workspace', 'users.username as owner'])
    .where('workspace_agents.id', 'in', agentIds)
    .where((eb) => allowedRows(eb, filter, { org: 'workspaces.organization_id', owner: 'workspaces.owner_id' }))
    .execute();
}

/** Log lines of an agent by id, ascending, within the open range (after, before). */
export async function listAgentLogs(
  db: Kysely<Database>,
  agentId: string,
  range: { readonly after?: number | undefined; readonly before?: number | undefined },
): Promise<AgentLogRow[]> {
  let query = db.selectFrom('workspace_agent_logs').selectAll().where('agent_id', '=', agentId);
  if (range.after !== undefined) query = query.where('id', '>', range.after);
  if (range.before !== undefined && range.before > 0) query = query.where('id', '<', range.before);
  return query.orderBy('id').execute();
}

/** The ids of the agents on the resources of these build jobs, as a subquery. */
export function agentIdsOfJobs(db: Kysely<Database>, jobIds: readonly string[]) {
  return db
    .selectFrom('workspace_agents as a')
    .innerJoin('workspace_resources as r', 'r.id', 'a.resource_id')
    .select('a.id')
    .where('r.job_id', 'in', inList(jobIds));
}

/** The log sources of the agents of these build jobs, oldest first; undefined when there is nothing to look up. */
export function logSourcesOfJobsQuery(db: Kysely<Database>, jobIds: readonly string[]) {
  return jobIds.length === 0
    ? undefined
    : db
        .selectFrom('workspace_agent_log_sources')
        .selectAll()
        .where('agent_id', 'in', agentIdsOfJobs(db, jobIds))
        .orderBy('created_at')
        .orderBy('id');
}

/**
 * Records a log source, or renames an existing one (same agent and id); it keeps its creation time.
 * A source that already reads so is not written again (log batches record theirs with every batch).
 */
export async function upsertLogSource(db: Kysely<Database>, row: AgentLogSourceRow): Promise<void> {
  // Written out rather than built: log batches run it with every batch.
  await sql`
    insert into workspace_agent_log_sources (agent_id, id, display_name, icon, created_at)
    values (${row.agent_id}, ${row.id}, ${row.display_name}, ${row.icon}, ${row.created_at})
    on conflict (agent_id, id) do update set display_name = excluded.display_name, icon = excluded.icon
    where workspace_agent_log_sources.display_name <> excluded.display_name or workspace_agent_log_sources.icon <> excluded.icon`.execute(
    db,
  );
}
