import { viewJobsWith, type JobView } from '../domain/provisioner-job-views.js';
import { nextAutostart } from '../domain/schedule/index.js';
import { buildStatus } from '../domain/workspace-builds.js';
import { readDefinition, scriptLogSources, wireApps, wireScripts } from '../domain/agent-definition.js';
import { deriveAgentHealth, deriveAgentStatus } from '../domain/agent-status.js';
import { toWireAppStatus } from '../domain/app-statuses.js';
import type { Workspace, WorkspaceAgent, WorkspaceAppStatus, WorkspaceBuild, WorkspaceResource } from '../sdk/wire/index.js';
import { parseJson, parseStringArray } from '../store/json-column.js';
import { listLogSources, type AgentLogSourceRow, type AgentWithOwners } from '../store/queries/workspace-agents.js';
import { jobRelations, listResourcesOfJobs, type WorkspaceResourceRow } from '../store/queries/provisioner-jobs.js';
import { latestAppStatuses, listAppStatusesOfAgents, type AppStatusRow } from '../store/queries/workspace-app-statuses.js';
import {
  latestBuilds,
  listAgentsOfResources,
  type WorkspaceAgentRow,
  type WorkspaceBuildRow,
  type WorkspaceRow,
} from '../store/queries/workspaces.js';
import { withSubdomainNames, type AppLabelNames } from './apps/app-request.js';
import { RELAY_REGION_NAME } from '../domain/relay-map.js';
import type { ApiContext } from './context.js';
import { toWireJob } from './convert/provisioner-job.js';
import { toWireResource } from './convert/template-version.js';

/**
 * Builds the API's answers for workspaces and builds: everything joined in a handful of queries
 * per answer, whatever the number of rows.
 */

interface Lookups {
  readonly users: Map<string, { username: string; avatar_url: string }>;
  readonly versions: Map<string, { name: string; template_id: string | null }>;
  readonly jobs: Map<string, JobView>;
  readonly resources: Map<string, WorkspaceResource[]>;
}

async function lookups(context: ApiContext, builds: readonly WorkspaceBuildRow[], workspaces: readonly WorkspaceRow[]): Promise<Lookups> {
  const db = context.store.db;
  const userIds = [...new Set([...builds.map((b) => b.initiator_id), ...workspaces.map((w) => w.owner_id)])];
  const users = new Map(
    (userIds.length === 0
      ? []
      : await db.selectFrom('users').select(['id', 'username', 'avatar_url']).where('id', 'in', userIds).execute()
    ).map((u) => [u.id, u]),
  );
  const versionIds = [...new Set(builds.map((b) => b.template_version_id))];
  const versions = new Map(
    (versionIds.length === 0
      ? []
      : await db.selectFrom('template_versions').select(['id', 'name', 'template_id']).where('id', 'in', versionIds).execute()
    ).map((v) => [v.id, v]),
  );
  const jobRows =
    builds.length === 0
      ? []
      : await db
          .selectFrom('provisioner_jobs')
          .selectAll()
          .where(
            'id',
            'in',
            builds.map((b) => b.job_id),
          )
          .execute();
  const views = viewJobsWith(await jobRelations(db, jobRows), jobRows, context.store.clock.now());
  const jobs = new Map(views.map((view) => [view.row.id, view]));
  const resourceRows = await listResourcesOfJobs(
    db,
    builds.map((b) => b.job_id),
  );
  const agents = await listAgentsOfResources(
    db,
    resourceRows.map((r) => r.id),
  );
  const sources = await listLogSources(
    db,
    agents.map((agent) => agent.id),
  );
  const statuses = (
    await listAppStatusesOfAgents(
      db,
      agents.map((agent) => agent.id),
    )
  ).map(toWireAppStatus);
  const now = context.store.clock.now();
  const resources = new Map<string, WorkspaceResource[]>();
  const labels = appLabelNames(context, builds, workspaces, users);
  for (const row of resourceRows) {
    const list = resources.get(row.job_id) ?? [];
    list.push(
      toWireBuildResource(
        row,
        agents.filter((agent) => agent.resource_id === row.id),
        { sources, statuses },
        now,
        labels.get(row.job_id),
      ),
    );
    resources.set(row.job_id, list);
  }
  return { users, versions, jobs, resources };
}

/** Builds as the API shows them, with their jobs, resources and names. */
export async function answerBuilds(
  context: ApiContext,
  builds: readonly WorkspaceBuildRow[],
  workspaces: readonly WorkspaceRow[],
): Promise<WorkspaceBuild[]> {
  const found = await lookups(context, builds, workspaces);
  const byId = new Map(workspaces.map((w) => [w.id, w]));
  return builds.flatMap((build) => {
    const workspace = byId.get(build.workspace_id);
    const job = found.jobs.get(build.job_id);
    return workspace && job ? [toWireBuild(build, workspace, job, found)] : [];
  });
}

function toWireBuild(build: WorkspaceBuildRow, workspace: WorkspaceRow, job: JobView, found: Lookups): WorkspaceBuild {
  const owner = found.users.get(workspace.owner_id);
  return {
    id: build.id,
    created_at: build.created_at,
    updated_at: build.updated_at,
    workspace_id: workspace.id,
    workspace_name: workspace.name,
    workspace_owner_id: workspace.owner_id,
    workspace_owner_name: owner?.username ?? '',
    workspace_owner_avatar_url: owner?.avatar_url ?? '',
    template_version_id: build.template_version_id,
    template_version_name: found.versions.get(build.template_version_id)?.name ?? '',
    ...(build.template_version_preset_id ? { template_version_preset_id: build.template_version_preset_id } : {}),
    build_number: build.build_number,
    transition: build.transition as WorkspaceBuild['transition'],
    initiator_id: build.initiator_id,
    initiator_name: found.users.get(build.initiator_id)?.username ?? '',
    job: toWireJob(job),
    reason: build.reason,
    resources: found.resources.get(build.job_id) ?? [],
    ...(build.deadline ? { deadline: build.deadline } : {}),
    ...(build.max_deadline ? { max_deadline: build.max_deadline } : {}),
    status: buildStatus(job.status, build.transition),
    daily_cost: build.daily_cost,
    has_ai_task: false,
  };
}

/** Workspaces as the API shows them, each with its latest build. */
export async function answerWorkspaces(context: ApiContext, workspaces: readonly WorkspaceRow[]): Promise<Workspace[]> {
  if (workspaces.length === 0) return [];
  const db = context.store.db;
  const latest = await latestBuilds(
    db,
    workspaces.map((w) => w.id),
  );
  const found = await lookups(context, [...latest.values()], workspaces);
  const templates = new Map(
    (
      await db
        .selectFrom('templates')
        .selectAll()
        .where('id', 'in', [...new Set(workspaces.map((w) => w.template_id))])
        .execute()
    ).map((t) => [t.id, t]),
  );
  const appStatuses = await latestAppStatuses(
    db,
    workspaces.map((w) => w.id),
  );
  const orgs = new Map(
    (
      await db
        .selectFrom('organizations')
        .select(['id', 'name'])
        .where('id', 'in', [...new Set(workspaces.map((w) => w.organization_id))])
        .execute()
    ).map((o) => [o.id, o.name]),
  );
  return workspaces.flatMap((workspace) => {
    const build = latest.get(workspace.id);
    const job = build ? found.jobs.get(build.job_id) : undefined;
    const template = templates.get(workspace.template_id);
    if (!build || !job || !template) return [];
    const owner = found.users.get(workspace.owner_id);
    const wireBuild = toWireBuild(build, workspace, job, found);
    // Only a started workspace expects its agents to run; those of a stop build are not failing.
    const running = build.transition === 'start' ? wireBuild.resources.flatMap((r) => r.agents) : [];
    const failing = running.filter((agent) => !agent.health.healthy).map((agent) => agent.id);
    return [
      {
        id: workspace.id,
        created_at: workspace.created_at,
        updated_at: workspace.updated_at,
        owner_id: workspace.owner_id,
        owner_name: owner?.username ?? '',
        owner_avatar_url: owner?.avatar_url ?? '',
        organization_id: workspace.organization_id,
        organization_name: orgs.get(workspace.organization_id) ?? '',
        template_id: template.id,
        template_name: template.name,
        template_display_name: template.display_name,
        template_icon: template.icon,
        template_allow_user_cancel_workspace_jobs: template.allow_user_cancel_workspace_jobs === 1,
        template_active_version_id: template.active_version_id,
        template_require_active_version: template.require_active_version === 1,
        template_use_classic_parameter_flow: template.use_classic_parameter_flow === 1,
        latest_build: wireBuild,
        ...latestAppStatus(appStatuses.get(workspace.id)),
        outdated: build.template_version_id !== template.active_version_id,
        name: workspace.name,
        ...(workspace.autostart_schedule ? { autostart_schedule: workspace.autostart_schedule } : {}),
        ...(workspace.ttl_ms ? { ttl_ms: workspace.ttl_ms } : {}),
        last_used_at: workspace.last_used_at,
        ...(workspace.deleting_at ? { deleting_at: workspace.deleting_at } : {}),
        ...(workspace.dormant_at ? { dormant_at: workspace.dormant_at } : {}),
        health: { healthy: failing.length === 0, failing_agents: failing },
        automatic_updates: workspace.automatic_updates,
        allow_renames: context.values.allowWorkspaceRenames,
        favorite: workspace.favorite === 1,
        ...nextStart(workspace, template, context.store.clock.now()),
      },
    ];
  });
}

function latestAppStatus(row: AppStatusRow | undefined): { latest_app_status?: WorkspaceAppStatus } {
  return row ? { latest_app_status: toWireAppStatus(row) } : {};
}

function nextStart(
  workspace: WorkspaceRow,
  template: { allow_user_autostart: number; autostart_requirement_days: number },
  now: Date,
): { next_start_at?: string } {
  try {
    const at = nextAutostart({
      schedule: workspace.autostart_schedule,
      after: now,
      templateAllowsAutostart: template.allow_user_autostart === 1,
      autostartDays: template.autostart_requirement_days,
    });
    return at ? { next_start_at: at.toISOString() } : {};
  } catch {
    return {};
  }
}

/** What agents report that their answers show: log sources, and app statuses newest first. */
interface AgentReports {
  readonly sources: readonly AgentLogSourceRow[];
  readonly statuses: readonly WorkspaceAppStatus[];
}

function reportsOf(agentId: string, reports: AgentReports): AgentReports {
  return {
    sources: reports.sources.filter((source) => source.agent_id === agentId),
    statuses: reports.statuses.filter((status) => status.agent_id === agentId),
  };
}

/** A resource of a build, with the agents the build made for it. */
function toWireBuildResource(
  row: WorkspaceResourceRow,
  agents: readonly WorkspaceAgentRow[],
  reports: AgentReports,
  now: Date,
  labels: AppLabelNames | undefined,
): WorkspaceResource {
  return toWireResource(
    row,
    agents.map((agent) => toWireAgent(row.id, agent, reportsOf(agent.id, reports), now, labels)),
  );
}

/** Per build job, the names subdomain app labels are made of; none when the deployment serves no subdomain apps. */
function appLabelNames(
  context: ApiContext,
  builds: readonly WorkspaceBuildRow[],
  workspaces: readonly WorkspaceRow[],
  users: ReadonlyMap<string, { username: string }>,
): Map<string, AppLabelNames> {
  const labels = new Map<string, AppLabelNames>();
  if (context.values.wildcardAccessUrl === '') return labels;
  for (const build of builds) {
    const workspace = workspaces.find((w) => w.id === build.workspace_id);
    const owner = workspace ? users.get(workspace.owner_id) : undefined;
    if (workspace && owner) labels.set(build.job_id, { workspace: workspace.name, owner: owner.username });
  }
  return labels;
}

/** One agent as `GET /workspaceagents/{id}` shows it. */
export async function answerAgent(context: ApiContext, found: AgentWithOwners): Promise<WorkspaceAgent> {
  const sources = await listLogSources(context.store.db, [found.agent.id]);
  const statuses = (await listAppStatusesOfAgents(context.store.db, [found.agent.id])).map(toWireAppStatus);
  const owner =
    context.values.wildcardAccessUrl === ''
      ? undefined
      : await context.store.db.selectFrom('users').select('username').where('id', '=', found.workspace.owner_id).executeTakeFirst();
  const labels = owner ? { workspace: found.workspace.name, owner: owner.username } : undefined;
  return toWireAgent(found.resource.id, found.agent, { sources, statuses }, context.store.clock.now(), labels);
}

function toWireAgent(
  resourceId: string,
  agent: WorkspaceAgentRow,
  { sources, statuses }: AgentReports,
  now: Date,
  labels: AppLabelNames | undefined,
): WorkspaceAgent {
  const definition = readDefinition(agent.definition);
  const { status, disconnectedAt } = deriveAgentStatus(
    { ...agent, connection_timeout_seconds: definition.connection_timeout_seconds },
    now,
  );
  const stored = sources.map((source) => ({
    id: source.id,
    workspace_agent_id: agent.id,
    created_at: source.created_at,
    display_name: source.display_name,
    icon: source.icon,
  }));
  const fromScripts = scriptLogSources(agent.id, definition, agent.created_at).filter((source) => !stored.some((s) => s.id === source.id));
  return {
    id: agent.id,
    resource_id: resourceId,
    name: agent.name,
    created_at: agent.created_at,
    updated_at: agent.updated_at,
    ...(agent.first_connected_at ? { first_connected_at: agent.first_connected_at } : {}),
    ...(agent.last_connected_at ? { last_connected_at: agent.last_connected_at } : {}),
    ...(disconnectedAt ? { disconnected_at: disconnectedAt } : {}),
    ...(agent.started_at ? { started_at: agent.started_at } : {}),
    ...(agent.ready_at ? { ready_at: agent.ready_at } : {}),
    status,
    lifecycle_state: agent.lifecycle_state,
    directory: definition.directory,
    expanded_directory: agent.expanded_directory,
    operating_system: definition.operating_system,
    architecture: definition.architecture,
    instance_id: agent.auth_instance_id,
    version: agent.version,
    api_version: agent.api_version,
    troubleshooting_url: definition.troubleshooting_url,
    connection_timeout_seconds: Math.trunc(definition.connection_timeout_seconds),
    logs_length: agent.logs_length,
    logs_overflowed: agent.logs_overflowed === 1,
    display_apps: definition.display_apps.filter((app) => DISPLAY_APPS.has(app)),
    subsystems: parseStringArray(agent.subsystems),
    environment_variables: { ...definition.env },
    health: deriveAgentHealth(status, agent.lifecycle_state),
    ...relayLatency(status, agent.last_stats),
    startup_script_behavior:
      definition.startup_script_behavior === 'blocking' || definition.scripts.some((s) => s.run_on_start && s.start_blocks_login)
        ? 'blocking'
        : 'non-blocking',
    log_sources: [...fromScripts, ...stored],
    parent_id: { uuid: '', valid: false },
    apps: withSubdomainNames(
      wireApps(agent.id, definition, parseJson<Record<string, string>>(agent.app_health, {}), statuses),
      agent.name,
      labels,
    ),
    scripts: wireScripts(agent.id, definition),
  };
}

/**
 * The agent's latency to the daemon, under the relay region's name as the reference keys it: the
 * round trip of its heartbeat, from its last stats report, while it is connected.
 */
function relayLatency(status: WorkspaceAgent['status'], lastStats: string | null): { latency?: WorkspaceAgent['latency'] } {
  const latencyMs = parseJson<{ connection_median_latency_ms?: number }>(lastStats, {}).connection_median_latency_ms ?? 0;
  if (status !== 'connected' || !(latencyMs > 0)) return {};
  return { latency: { [RELAY_REGION_NAME]: { latency_ms: latencyMs, preferred: true } } };
}

/** The display apps the API reports; others the template names are dropped (reference §2.3). */
const DISPLAY_APPS = new Set(['vscode', 'vscode_insiders', 'web_terminal', 'port_forwarding_helper', 'ssh_helper']);
