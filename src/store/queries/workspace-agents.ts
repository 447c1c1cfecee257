import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, WorkspaceAgentLogSourceTable, WorkspaceAgentLogTable, WorkspaceAgentTable } from '../schema.js';
import type { WorkspaceBuildRow, WorkspaceRow } from './workspaces.js';
import type { WorkspaceResourceRow } from './provisioner-jobs.js';

export type AgentRow = Selectable<WorkspaceAgentTable>;
export type AgentLogRow = Selectable<WorkspaceAgentLogTable>;
export type AgentLogSourceRow = Selectable<WorkspaceAgentLogSourceTable>;

/** An agent with the resource, build and workspace it belongs to. */
export interface AgentWithOwners {
  readonly agent: AgentRow;
  readonly resource: WorkspaceResourceRow;
  readonly build: WorkspaceBuildRow;
  readonly workspace: WorkspaceRow;
}

/** The resource, build and workspace of an agent row; undefined when any is gone. */
async function ownersOf(db: Kysely<Database>, agent: AgentRow | undefined): Promise<AgentWithOwners | undefined> {
  if (!agent) return undefined;
  const resource = await db.selectFrom('workspace_resources').selectAll().where('id', '=', agent.resource_id).executeTakeFirst();
  if (!resource) return undefined;
  const build = await db.selectFrom('workspace_builds').selectAll().where('job_id', '=', resource.job_id).executeTakeFirst();
  if (!build) return undefined;
  const workspace = await db.selectFrom('workspaces').selectAll().where('id', '=', build.workspace_id).executeTakeFirst();
  return workspace ? { agent, resource, build, workspace } : undefined;
}

/** The agent whose token hashes to `hash`, with what it belongs to. */
export async function getAgentByTokenHash(db: Kysely<Database>, hash: string): Promise<AgentWithOwners | undefined> {
  const agent = await db
    .selectFrom('workspace_agents')
    .selectAll()
    .where('auth_token_hash', '=', hash)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  return ownersOf(db, agent);
}

/**
 * The newest agent whose cloud instance id is `instanceId` (several builds may have run on the
 * same instance), with the type of the job that created it. An empty id matches nothing.
 */
export async function getNewestAgentByInstanceId(
  db: Kysely<Database>,
  instanceId: string,
): Promise<{ readonly agent: AgentRow; readonly jobType: string } | undefined> {
  if (instanceId === '') return undefined;
  const row = await db
    .selectFrom('workspace_agents')
    .innerJoin('workspace_resources', 'workspace_resources.id', 'workspace_agents.resource_id')
    .innerJoin('provisioner_jobs', 'provisioner_jobs.id', 'workspace_resources.job_id')
    .leftJoin('workspace_builds', 'workspace_builds.job_id', 'workspace_resources.job_id')
    .selectAll('workspace_agents')
    .select('provisioner_jobs.type as job_type')
    .where('workspace_agents.auth_instance_id', '=', instanceId)
    // Agents made within the same millisecond: the later job, then the later build of a workspace, wins.
    .orderBy('workspace_agents.created_at', 'desc')
    .orderBy('provisioner_jobs.created_at', 'desc')
    .orderBy('workspace_builds.build_number', 'desc')
    .executeTakeFirst();
  if (!row) return undefined;
  const { job_type: jobType, ...agent } = row;
  return { agent, jobType };
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
 * can report its shutdown and stop scripts.
 */
export async function agentBuildIsCurrent(db: Kysely<Database>, workspaceId: string, buildId: string): Promise<boolean> {
  const workspace = await db.selectFrom('workspaces').select('deleted').where('id', '=', workspaceId).executeTakeFirst();
  if (!workspace || workspace.deleted) return false;
  const [latest, previous] = await db
    .selectFrom('workspace_builds')
    .select(['id', 'transition', 'job_id'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('build_number', 'desc')
    .limit(2)
    .execute();
  if (latest?.id === buildId) return true;
  if (!latest || latest.transition === 'start' || previous?.id !== buildId) return false;
  const job = await db.selectFrom('provisioner_jobs').select('completed_at').where('id', '=', latest.job_id).executeTakeFirst();
  return job !== undefined && job.completed_at === null;
}

export async function updateAgent(db: Kysely<Database>, id: string, changes: Updateable<WorkspaceAgentTable>): Promise<void> {
  await db.updateTable('workspace_agents').set(changes).where('id', '=', id).execute();
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

/** The log sources of these agents, oldest first. */
export async function listLogSources(db: Kysely<Database>, agentIds: readonly string[]): Promise<AgentLogSourceRow[]> {
  if (agentIds.length === 0) return [];
  return db
    .selectFrom('workspace_agent_log_sources')
    .selectAll()
    .where('agent_id', 'in', agentIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Records a log source, or renames an existing one (same agent and id); it keeps its creation time. */
export async function upsertLogSource(db: Kysely<Database>, row: AgentLogSourceRow): Promise<void> {
  await db
    .insertInto('workspace_agent_log_sources')
    .values(row)
    .onConflict((oc) => oc.columns(['agent_id', 'id']).doUpdateSet({ display_name: row.display_name, icon: row.icon }))
    .execute();
}
