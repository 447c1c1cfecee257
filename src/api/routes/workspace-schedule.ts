import { scheduleInEffect } from '../../domain/advanced-scheduling.js';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { agentScripts, readDefinition } from '../../domain/agent-definition.js';
import { jobStatus } from '../../domain/provisioner-job-status.js';
import { resolveBuildParameters } from '../../domain/build-parameters.js';
import { validateTtlMs, weeklyScheduleProblem } from '../../domain/schedule/index.js';
import { workspaceEventsChannel } from '../../domain/workspace-events.js';
import { addMs } from '../../lib/duration.js';
import { HttpProblem } from '../../lib/errors.js';
import { Response, Workspace, WorkspaceBuildTimings, type NameValue, type RichParameter, type TimingStage } from '../../sdk/wire/index.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import { parseJson } from '../../store/json-column.js';
import type { ProvisionerJobRow, WorkspaceBuildRow, WorkspaceRow } from '../../store/rows.js';
import type { ApiContext } from '../context.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { answerWorkspaces } from '../workspace-answers.js';
import { notifyWorkspaceDormant } from '../../domain/notifications/events/workspace-dormancy.js';
import { eventNotifier } from '../event-notifier.js';

const WorkspaceParam = Type.Object({ workspace: Type.String({ format: 'uuid' }) });

/** Schedules of a workspace: autostart, TTL, extending the deadline, dormancy, updates; and timings. */
export async function workspaceScheduleRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const workspaceOf = (request: FastifyRequest) => {
    const row = pathResource(request, 'workspace');
    if (row.deleted) throw new HttpProblem(410, `Workspace "${row.id}" was deleted.`);
    return row;
  };
  // The template as its schedule acts: its advanced settings only with the licensed feature.
  const templateOf = async (request: FastifyRequest, workspace: WorkspaceRow) =>
    scheduleInEffect(await authOf(request).store.workspaces.template(workspace), context.store.features);
  const changed = (workspace: WorkspaceRow, what: string) => context.store.pubsub.publish(workspaceEventsChannel(workspace.id), what);

  api.put(
    '/workspaces/:workspace/autostart',
    { schema: { params: WorkspaceParam, body: Type.Object({ schedule: Type.Optional(Type.Union([Type.String(), Type.Null()])) }) } },
    async (request, reply) => {
      const { store } = authOf(request);
      const workspace = workspaceOf(request);
      store.workspaces.authorize('update', workspace);
      const schedule = request.body.schedule?.trim() || null;
      if (schedule) {
        const problem = weeklyScheduleProblem(schedule);
        if (problem) throw new HttpProblem(400, 'Invalid autostart schedule.', { validations: [{ field: 'schedule', detail: problem }] });
        if (!(await templateOf(request, workspace)).allow_user_autostart) {
          throw new HttpProblem(400, 'Autostart is not allowed for workspaces using this template.', {
            validations: [{ field: 'schedule', detail: 'the template does not allow autostart' }],
          });
        }
      }
      await store.workspaces.update(workspace, { autostart_schedule: schedule });
      await changed(workspace, 'autostart');
      return reply.code(204).send();
    },
  );

  api.put(
    '/workspaces/:workspace/ttl',
    { schema: { params: WorkspaceParam, body: Type.Object({ ttl_ms: Type.Optional(Type.Union([Type.Integer(), Type.Null()])) }) } },
    async (request, reply) => {
      const { store } = authOf(request);
      const workspace = workspaceOf(request);
      store.workspaces.authorize('update', workspace);
      let ttl: number | null;
      try {
        ttl = validateTtlMs(request.body.ttl_ms);
      } catch (error) {
        throw new HttpProblem(400, 'Invalid workspace autostop timer.', {
          validations: [{ field: 'ttl_ms', detail: (error as Error).message }],
        });
      }
      if (!(await templateOf(request, workspace)).allow_user_autostop) {
        throw new HttpProblem(400, 'Invalid workspace autostop timer.', {
          validations: [{ field: 'ttl_ms', detail: 'Custom autostop TTL is not allowed for workspaces using this template.' }],
        });
      }
      await store.workspaces.update(workspace, { ttl_ms: ttl });
      if (ttl === null) {
        // Turning autostop off also lifts the running build's deadline; the max deadline stays.
        const latest = await store.workspaceBuilds.getLatest(workspace);
        if (latest?.build.transition === 'start') await store.workspaceBuilds.setDeadline(workspace, latest.build, null);
      }
      await changed(workspace, 'ttl');
      return reply.code(204).send();
    },
  );

  api.put(
    '/workspaces/:workspace/extend',
    {
      schema: {
        params: WorkspaceParam,
        body: Type.Object({ deadline: Type.String({ format: 'date-time' }) }),
        response: { 200: Response },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const workspace = workspaceOf(request);
      store.workspaces.authorize('update', workspace);
      const latest = await store.workspaceBuilds.getLatest(workspace);
      if (!latest || latest.build.transition !== 'start')
        throw new HttpProblem(409, `Workspace must be started, current status: ${latest?.build.transition ?? 'none'}`);
      const { build, job } = latest;
      if (!job.completed_at) throw new HttpProblem(409, 'Workspace is still building!');
      if (!build.deadline) throw new HttpProblem(409, 'Workspace shutdown is manual.');
      const wanted = new Date(request.body.deadline);
      const now = context.store.clock.now();
      if (wanted.getTime() < now.getTime() + 29 * 60_000) {
        throw new HttpProblem(400, 'Cannot extend workspace: new deadline must be at least 30 minutes in the future.', {
          validations: [{ field: 'deadline', detail: 'too soon' }],
        });
      }
      if (wanted.getTime() < Date.parse(job.completed_at)) {
        throw new HttpProblem(400, 'Cannot extend workspace: new deadline must be before workspace start time.', {
          validations: [{ field: 'deadline', detail: 'before the start' }],
        });
      }
      if (build.max_deadline && wanted.getTime() > Date.parse(build.max_deadline)) {
        throw new HttpProblem(400, 'Cannot extend workspace beyond max deadline.', {
          validations: [{ field: 'deadline', detail: `after ${build.max_deadline}` }],
        });
      }
      await store.workspaceBuilds.setDeadline(workspace, build, wanted.toISOString());
      await changed(workspace, 'extend');
      return { message: `Deadline updated to ${wanted.toISOString()}.` };
    },
  );

  api.put(
    '/workspaces/:workspace/dormant',
    { schema: { params: WorkspaceParam, body: Type.Object({ dormant: Type.Boolean() }), response: { 200: Workspace, 304: Type.Null() } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const workspace = workspaceOf(request);
      const dormant = request.body.dormant;
      if ((workspace.dormant_at !== null) === dormant) {
        store.workspaces.authorize('update', workspace);
        return reply.code(304).send(null);
      }
      const template = await templateOf(request, workspace);
      const now = context.store.clock.now();
      const updated = await store.workspaces.update(
        workspace,
        dormant
          ? {
              dormant_at: now.toISOString(),
              deleting_at:
                template.time_til_dormant_autodelete_ms > 0 ? addMs(now, template.time_til_dormant_autodelete_ms).toISOString() : null,
            }
          : { dormant_at: null, deleting_at: null, last_used_at: now.toISOString() },
      );
      await changed(workspace, 'dormant');
      // Someone else making a workspace dormant is news to its owner; the owner knows what they did.
      const { user } = authOf(request);
      if (dormant && user.id !== workspace.owner_id)
        await notifyWorkspaceDormant(eventNotifier(context, request.log), updated, { markedBy: user.username });
      return (await answerWorkspaces(context, store, [updated]))[0];
    },
  );

  api.put(
    '/workspaces/:workspace/autoupdates',
    { schema: { params: WorkspaceParam, body: Type.Object({ automatic_updates: Type.String() }) } },
    async (request, reply) => {
      const { store } = authOf(request);
      const workspace = workspaceOf(request);
      const value = request.body.automatic_updates;
      if (value !== 'always' && value !== 'never') {
        throw new HttpProblem(400, 'Invalid automatic updates value.', {
          validations: [{ field: 'automatic_updates', detail: 'must be always or never' }],
        });
      }
      await store.workspaces.update(workspace, { automatic_updates: value });
      await changed(workspace, 'autoupdates');
      return reply.code(204).send();
    },
  );

  api.get(
    '/workspaces/:workspace/resolve-autostart',
    { schema: { params: WorkspaceParam, response: { 200: Type.Object({ parameter_mismatch: Type.Boolean() }) } } },
    async (request) => {
      const { store } = authOf(request);
      const workspace = workspaceOf(request);
      const template = await templateOf(request, workspace);
      const build = (await store.workspaceBuilds.getLatest(workspace))?.build;
      const mustUseActive = template.require_active_version === 1 || workspace.automatic_updates === 'always';
      if (!build || !mustUseActive || build.template_version_id === template.active_version_id) return { parameter_mismatch: false };
      const active = await store.workspaces.templateVersion(workspace, template.active_version_id);
      try {
        resolveBuildParameters(
          parseJson<RichParameter[]>(active.parameters, []),
          [],
          parseJson<NameValue[]>(build.rich_parameter_values, []),
        );
        return { parameter_mismatch: false };
      } catch {
        return { parameter_mismatch: true };
      }
    },
  );

  api.get(
    '/workspaces/:workspace/timings',
    { schema: { params: WorkspaceParam, response: { 200: WorkspaceBuildTimings } } },
    async (request) => {
      const { store } = authOf(request);
      const workspace = workspaceOf(request);
      const latest = await store.workspaceBuilds.getLatest(workspace);
      if (!latest) return { provisioner_timings: [], agent_script_timings: [], agent_connection_timings: [] };
      return buildTimings(store, workspace, latest);
    },
  );

  api.get(
    '/workspacebuilds/:workspacebuild/timings',
    { schema: { params: Type.Object({ workspacebuild: Type.String({ format: 'uuid' }) }), response: { 200: WorkspaceBuildTimings } } },
    async (request) => {
      const { store } = authOf(request);
      const { build, workspace } = pathResource(request, 'workspaceBuild');
      return buildTimings(store, workspace, { build, job: await store.workspaceBuilds.job(workspace, build) });
    },
  );
}

/** How one build went: its provisioner's stages, when its agents connected, how their scripts ran. */
async function buildTimings(
  store: AuthorizedStore,
  workspace: WorkspaceRow,
  built: { readonly build: WorkspaceBuildRow; readonly job: ProvisionerJobRow },
): Promise<WorkspaceBuildTimings> {
  return { provisioner_timings: await provisionerTimings(store, workspace, built), ...(await agentTimings(store, workspace, built.build)) };
}

/** When each agent of the build first connected, and how each of its scripts ran. */
async function agentTimings(store: AuthorizedStore, workspace: WorkspaceRow, build: WorkspaceBuildRow) {
  const agents = await store.workspaceBuilds.agents(workspace, build);
  const runs = await store.workspaceBuilds.scriptTimings(workspace, agents);
  const agentOf = new Map(agents.map((agent) => [agent.id, agent]));
  return {
    agent_script_timings: runs.map((run) => {
      const agent = agentOf.get(run.agent_id);
      const script = agent ? agentScripts(agent.id, readDefinition(agent.definition)).find((s) => s.id === run.script_id) : undefined;
      return {
        display_name: script?.display_name ?? '',
        status: run.status,
        stage: run.stage,
        exit_code: run.exit_code,
        workspace_agent_id: run.agent_id,
        workspace_agent_name: agent?.name ?? '',
        started_at: run.started_at,
        ended_at: run.ended_at,
      };
    }),
    agent_connection_timings: agents
      .filter((agent) => agent.first_connected_at)
      .map((agent) => ({
        stage: 'connect',
        workspace_agent_id: agent.id,
        workspace_agent_name: agent.name,
        started_at: agent.created_at,
        ended_at: agent.first_connected_at ?? agent.created_at,
      })),
  };
}

/**
 * The reference's timing stage of each stage the runner and provisioners name in a job's log
 * (src/provisioner/runner/job-runner.ts): its dashboard charts only `init`, `plan`, `graph` and
 * `apply`. `null` (the runner's clean-up, a provisioner's own stage) counts toward the stage
 * before it, so the spans still cover the whole job.
 */
const TIMING_STAGE: Readonly<Record<string, TimingStage>> = {
  'Setting up': 'init',
  'Initializing terraform': 'init',
  'Parsing template parameters': 'plan',
  'Detecting persistent resources': 'plan',
  'Detecting ephemeral resources': 'plan',
  'Planning infrastructure': 'plan',
  'Starting workspace': 'apply',
  'Stopping workspace': 'apply',
  'Destroying workspace': 'apply',
};

/**
 * Stage by stage, from the first to the last log line of each stage of the build's job, under the
 * reference's stage names; `action` keeps the log's own name of the stage that opened the span.
 */
async function provisionerTimings(
  store: AuthorizedStore,
  workspace: WorkspaceRow,
  latest: { readonly build: WorkspaceBuildRow; readonly job: ProvisionerJobRow },
): Promise<WorkspaceBuildTimings['provisioner_timings']> {
  const { job } = latest;
  const jobId = job.id;
  const logs = await store.workspaceBuilds.logs(workspace, latest.build, {});
  const stages: { stage: TimingStage; action: string; started_at: string; ended_at: string }[] = [];
  for (const log of logs) {
    const last = stages.at(-1);
    const stage = TIMING_STAGE[log.stage] ?? last?.stage ?? 'init';
    if (last?.stage === stage) last.ended_at = log.created_at;
    else {
      if (last) last.ended_at = log.created_at;
      stages.push({ stage, action: log.stage, started_at: log.created_at, ended_at: log.created_at });
    }
  }
  const final = stages.at(-1);
  if (final && job.completed_at && jobStatus(job) !== 'running') final.ended_at = job.completed_at;
  return stages.map((span) => ({ job_id: jobId, ...span, source: job.provisioner, resource: '' }));
}
