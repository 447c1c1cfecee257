import type { EnabledFeatures } from '../lib/enabled-features.js';
import { scheduleInEffect } from './advanced-scheduling.js';
import { createHash } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { appUrlProblem } from '../lib/app-url.js';
import { HttpProblem, isNotFoundOrHidden } from '../lib/errors.js';
import { newId } from '../lib/random.js';
import type {
  AcquiredJob,
  CompletedBuild,
  CompletedImport,
  CompletedJob,
  JobLogInput,
  PlannedResource,
  TemplateVariable,
} from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import { parseJson } from '../store/json-column.js';
import type { PubSub } from '../store/pubsub.js';
import type {
  CompletionExpectation,
  JobCompletion,
  JobContext,
  JobLogLine,
  JobWithContext,
  ProvisionerJobRow,
  WorkspaceResourceRow,
} from '../store/rows.js';
import { jobEventsChannel, type JobEvent } from './provisioner-events.js';
import { workspaceEventsChannel } from './workspace-events.js';
import { queuedStartOverBudget } from './workspace-quota.js';
import { computeDeadlines, effectiveQuietHours, type QuietHoursSettings } from './schedule/index.js';
import type { ProvisionerTags } from './provisioner-tags.js';

/**
 * The daemon's side of the job protocol: handing jobs to provisioner daemons and recording what
 * they report. These functions act as the provisioner system itself, not as a user: the daemon
 * was authenticated when it connected (by key or by an administrator's session), and each call
 * checks that the job is one this daemon holds.
 */

/**
 * Where the protocol reads and writes: the store as the provisioner daemon's system subject, the
 * pubsub that tells followers of a job what happened, and the clock.
 */
export interface JobProtocol {
  readonly store: AuthorizedStore;
  readonly pubsub: PubSub;
  readonly clock: Clock;
  /** The licensed features in effect: advanced template scheduling shapes a start's deadlines. */
  readonly features: EnabledFeatures;
  /** The deployment's quiet hours; without them every owner has the built-in default. */
  readonly quietHours?: QuietHoursSettings;
  /** The ids of the deployment's external auth providers: an import naming another is refused. */
  readonly externalAuthProviderIds?: readonly string[];
  /** Told, without waiting, of each job whose end was recorded here (its notifications go out from there). */
  readonly jobFinished?: (jobId: string) => void;
}

/** A connected provisioner daemon. */
export interface ConnectedDaemon {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly provisioners: readonly string[];
  readonly tags: ProvisionerTags;
  readonly keyId: string | null;
  readonly version: string;
}

/** What the daemon needs to know about each job input, whatever the job type. */
export interface JobInput {
  readonly template_version_id?: string;
  readonly workspace_build_id?: string;
  readonly workspace_name?: string;
  readonly user_variable_values?: readonly { name: string; value: string }[];
  readonly rich_parameter_values?: readonly { name: string; value: string }[];
}

/** Records (or refreshes) a daemon's row when it connects. */
export async function registerDaemon(protocol: JobProtocol, daemon: ConnectedDaemon): Promise<void> {
  const now = protocol.clock.now().toISOString();
  await protocol.store.provisionerDaemons.register({
    id: daemon.id,
    organization_id: daemon.organizationId,
    name: daemon.name,
    provisioners: JSON.stringify(daemon.provisioners),
    tags: JSON.stringify(daemon.tags),
    key_id: daemon.keyId,
    version: daemon.version,
    api_version: '1.0',
    created_at: now,
    last_seen_at: now,
  });
}

/** Marks a daemon as seen now. */
export async function touchDaemon(protocol: JobProtocol, daemon: ConnectedDaemon): Promise<void> {
  await protocol.store.provisionerDaemons.touch(daemon.organizationId, daemon.id);
}

/**
 * A step that is stored, and the announcement of it to watchers (on PostgreSQL a NOTIFY, a round
 * trip): the daemon's answer need not wait for it, only whoever reports its failure.
 */
export interface Announcing<T = undefined> {
  readonly value: T;
  readonly announced: Promise<void>;
}

/**
 * Claims the oldest queued job this daemon may run, or returns undefined when there is none.
 * Claiming is one conditional update, so two daemons never get the same job.
 */
export async function acquireJob(
  protocol: JobProtocol,
  daemon: ConnectedDaemon,
  accessUrl: string,
): Promise<(Announcing<AcquiredJob> & { readonly claimed: ClaimedJob }) | undefined> {
  const { store } = protocol;
  const taker = { workerId: daemon.id, provisioners: daemon.provisioners, tags: daemon.tags };
  for (;;) {
    const claimed = await store.provisionerJobs.claimNext(daemon.organizationId, taker);
    if (!claimed) return undefined;
    const { job, context } = claimed;
    const build = context.build;
    const overBudget = build?.row && build.workspace ? await queuedStartOverBudget(store, build.row, build.workspace) : undefined;
    if (overBudget !== undefined) {
      await (
        await finishJob(protocol, job, { error: overBudget, error_code: '' })
      ).announced;
      continue;
    }
    try {
      const acquired = describeJob(job, context, accessUrl);
      return {
        value: acquired,
        announced: publishWorkspaceOfJob(protocol, job, context.build?.workspace?.id),
        // The archive went out with the job; recording its end does not need it kept.
        claimed: { job, context: { ...context, file: undefined } },
      };
    } catch (error) {
      // A job that cannot be described (its file is gone, say) fails at once rather than hanging.
      await (
        await finishJob(protocol, job, { error: `the job cannot be started: ${(error as Error).message}`, error_code: '' })
      ).announced;
    }
  }
}

function describeJob(job: ProvisionerJobRow, context: JobContext, accessUrl: string): AcquiredJob {
  const { file } = context;
  if (!file) throw new Error('its template file no longer exists');
  const initiator = context.initiatorUsername ?? '';
  const input = parseJson<JobInput>(job.input, {});
  if (job.type === 'workspace_build') return describeBuildJob(job, context, file.data, initiator, accessUrl);
  return {
    job_id: job.id,
    type: job.type as AcquiredJob['type'],
    created_at: job.created_at,
    provisioner: job.provisioner,
    initiator_username: initiator,
    access_url: accessUrl,
    archive_base64: file.data.toString('base64'),
    user_variable_values: [...(input.user_variable_values ?? [])],
    rich_parameter_values: [...(input.rich_parameter_values ?? [])],
    workspace:
      job.type === 'template_version_dry_run'
        ? {
            id: '00000000-0000-0000-0000-000000000000',
            name: input.workspace_name || 'dryrun',
            owner: initiator,
            owner_id: job.initiator_id,
            start_count: 1,
          }
        : null,
    workspace_build_id: input.workspace_build_id ?? null,
    transition: 'start',
    previous_state_base64: null,
    log_level: 'info',
  };
}

function describeBuildJob(job: ProvisionerJobRow, context: JobContext, archive: Buffer, initiator: string, accessUrl: string): AcquiredJob {
  const build = context.build?.row;
  if (!build) throw new Error('its workspace build no longer exists');
  const workspace = context.build?.workspace;
  if (!workspace) throw new Error('its workspace no longer exists');
  const variables = parseJson<TemplateVariable[]>(context.build?.versionVariables, []);
  const transition = build.transition as AcquiredJob['transition'];
  return {
    job_id: job.id,
    type: 'workspace_build',
    created_at: job.created_at,
    provisioner: job.provisioner,
    initiator_username: initiator,
    access_url: accessUrl,
    archive_base64: archive.toString('base64'),
    user_variable_values: variables.map((variable) => ({ name: variable.name, value: variable.value })),
    rich_parameter_values: parseJson(build.rich_parameter_values, []),
    workspace: {
      id: workspace.id,
      name: workspace.name,
      owner: context.build?.ownerUsername ?? '',
      owner_id: workspace.owner_id,
      start_count: transition === 'start' ? 1 : 0,
    },
    workspace_build_id: build.id,
    transition,
    previous_state_base64:
      build.provisioner_state && build.provisioner_state.length > 0 ? Buffer.from(build.provisioner_state).toString('base64') : null,
    // A build that asked for debug logs (`log_level` on its request) keeps the provisioner's debug lines.
    log_level: parseJson<{ log_level?: string }>(job.input, {}).log_level === 'debug' ? 'debug' : 'info',
  };
}

/** The job, if this daemon holds it and it is not finished; otherwise a refusal naming why. */
async function heldJob(protocol: JobProtocol, daemon: ConnectedDaemon, jobId: string): Promise<ProvisionerJobRow> {
  const held = await protocol.store.provisionerJobs
    .get(daemon.organizationId, jobId)
    .then((job) => ({ job }))
    .catch(unlessHidden);
  checkHeld(daemon, held);
  return held.job;
}

/** A held job with what recording its completion needs, read together. */
async function heldJobToRecord(protocol: JobProtocol, daemon: ConnectedDaemon, jobId: string): Promise<JobWithContext> {
  const found = await protocol.store.provisionerJobs.getWithContext(daemon.organizationId, jobId, 'record').catch(unlessHidden);
  checkHeld(daemon, found);
  return found;
}

function unlessHidden(error: unknown): undefined {
  if (isNotFoundOrHidden(error)) return undefined;
  throw error;
}

function checkHeld<Held extends { readonly job: ProvisionerJobRow }>(
  daemon: ConnectedDaemon,
  held: Held | undefined,
): asserts held is Held {
  const job = held?.job;
  if (!job || job.worker_id !== daemon.id) throw new HttpProblem(403, "You don't own this job.");
  if (job.completed_at) throw new HttpProblem(409, 'The job is already finished.');
}

/** A heartbeat with log lines. Answers whether the job was canceled meanwhile. */
export async function updateJob(
  protocol: JobProtocol,
  daemon: ConnectedDaemon,
  jobId: string,
  logs: readonly JobLogInput[],
): Promise<{ canceled: boolean }> {
  const job = await heldJob(protocol, daemon, jobId);
  await protocol.store.provisionerJobs.appendLogs(job, logRows(logs));
  if (logs.length > 0) await publishJobEvent(protocol, jobId, 'logs');
  return { canceled: job.canceled_at !== null };
}

function logRows(logs: readonly JobLogInput[]): JobLogLine[] {
  return logs.map((log) => ({ created_at: log.created_at, source: log.source, level: log.level, stage: log.stage, output: log.output }));
}

/** The last lines a report brings, stored before the job's end (the end itself announces them). */
async function appendLastLines(protocol: JobProtocol, job: ProvisionerJobRow, logs: readonly JobLogInput[]): Promise<void> {
  if (logs.length > 0) await protocol.store.provisionerJobs.appendLogs(job, logRows(logs));
}

/**
 * The protocol for recording a job's end: on PostgreSQL its statements get the next free connection
 * before those of new work (claims, new builds), so that a job's end, and the watchers told of it,
 * do not wait behind the load that keeps arriving.
 */
function finishing(protocol: JobProtocol): JobProtocol {
  return { ...protocol, store: protocol.store.urgent() };
}

/**
 * What the claim of a job read with it, which the daemon's session keeps while the daemon runs the
 * job: the job's end is then recorded from it, checked rather than read again.
 */
export type ClaimedJob = JobWithContext;

/** How many times a job's end is computed when what it was computed from keeps changing meanwhile. */
const COMPLETION_ATTEMPTS = 3;

/**
 * Records a finished job with its results and its last log lines. Its results are computed from
 * what the claim read (`claimed`), and stored only if that still holds: the job this daemon's and
 * unfinished, the workspace and template settings they depend on unchanged. Otherwise they are
 * computed again from a fresh read.
 */
export async function completeJob(
  protocol: JobProtocol,
  daemon: ConnectedDaemon,
  jobId: string,
  result: CompletedJob,
  logs: readonly JobLogInput[] = [],
  claimed?: ClaimedJob,
): Promise<Announcing> {
  protocol = finishing(protocol);
  const refusal =
    result.type === 'template_version_import'
      ? importRefusal(result, protocol.externalAuthProviderIds ?? [])
      : unsafeAppRefusal(result.resources);
  if (refusal) {
    const job = await heldJob(protocol, daemon, jobId);
    await appendLastLines(protocol, job, logs);
    // A refused build's state is kept all the same: it says what the build made, for the next one to clean up.
    const state =
      result.type === 'workspace_build' && job.type === 'workspace_build' ? Buffer.from(result.state_base64, 'base64') : undefined;
    return finishJob(protocol, job, refusal, state);
  }
  let read = claimed?.job.id === jobId ? claimed : undefined;
  for (let attempt = 1; ; attempt++) {
    const { job, context } = read ?? (await heldJobToRecord(protocol, daemon, jobId));
    if (result.type !== job.type) throw new HttpProblem(400, `A ${job.type} job cannot complete with a ${result.type} result.`);
    const complete = (now: string): JobCompletion => ({
      ...(result.type === 'template_version_import'
        ? importCompletion(jobId, result, now)
        : result.type === 'template_version_dry_run'
          ? { now, resources: resourceRows(jobId, 'start', result.resources, now), agents: [] }
          : buildCompletion(jobId, context, result, now, protocol)),
      logs: logRows(logs),
    });
    const expected = { workerId: daemon.id, ...deadlineInputs(context) };
    const stored = await protocol.store.provisionerJobs.complete(job, complete, context.build?.workspace, expected);
    if (!stored.stored) {
      await stored.announced;
      if (attempt === COMPLETION_ATTEMPTS) {
        throw new HttpProblem(409, "The job's workspace or template kept changing while its end was recorded.");
      }
      read = undefined;
      continue;
    }
    // No order between them: the agent-token invalidation, the job's followers and the workspace's
    // watchers. Published in one turn, they go out in one NOTIFY.
    protocol.jobFinished?.(jobId);
    const announced = Promise.all([
      stored.announced,
      publishJobEvent(protocol, jobId, 'done'),
      publishWorkspaceOfJob(protocol, job, context.build?.workspace?.id),
    ]);
    return { value: undefined, announced: announced.then(() => undefined) };
  }
}

/**
 * The settings a build's deadlines were computed from (see startDeadlines), as they were read: its
 * end is stored only while they are unchanged.
 */
function deadlineInputs(context: JobContext): Pick<CompletionExpectation, 'workspace' | 'template'> {
  const workspace = context.build?.workspace;
  const template = context.build?.template;
  if (context.build?.row?.transition !== 'start' || !workspace || !template) return {};
  return {
    workspace: { id: workspace.id, values: { ttl_ms: workspace.ttl_ms, autostart_schedule: workspace.autostart_schedule } },
    template: {
      id: template.id,
      values: {
        default_ttl_ms: template.default_ttl_ms,
        allow_user_autostop: template.allow_user_autostop,
        autostart_requirement_days: template.autostart_requirement_days,
        autostop_requirement_days: template.autostop_requirement_days,
        autostop_requirement_weeks: template.autostop_requirement_weeks,
      },
    },
  };
}

/** Why an import that ran cannot be used: variables left without values, or external auth this deployment lacks. */
function importRefusal(
  result: CompletedImport,
  configuredProviders: readonly string[],
): { readonly error: string; readonly error_code: string } | undefined {
  const missing = result.variables.filter((variable) => variable.required && variable.value === '').map((v) => v.name);
  if (missing.length > 0) {
    return { error: `required template variables need values: ${missing.join(', ')}`, error_code: 'REQUIRED_TEMPLATE_VARIABLES' };
  }
  const unconfigured = result.external_auth.find((required) => !configuredProviders.includes(required.id));
  if (unconfigured) return { error: `external auth provider "${unconfigured.id}" is not configured`, error_code: '' };
  return unsafeAppRefusal([...result.start_resources, ...result.stop_resources]);
}

/**
 * Why a job's resources cannot be stored: an app whose URL the dashboard could not safely link to
 * (appUrlProblem). Checked here, where every provisioner's results arrive (echo, native,
 * terraform, external daemons), rather than in each of them.
 */
function unsafeAppRefusal(resources: readonly PlannedResource[]): { readonly error: string; readonly error_code: string } | undefined {
  for (const resource of resources) {
    for (const agent of resource.agents) {
      for (const app of agent.apps) {
        const problem = appUrlProblem(app);
        if (problem) return { error: `agent "${agent.name}" of resource "${resource.name}": ${problem}`, error_code: '' };
      }
    }
  }
  return undefined;
}

function importCompletion(jobId: string, result: CompletedImport, now: string): JobCompletion {
  return {
    now,
    version: {
      readme: result.readme,
      variables: JSON.stringify(result.variables satisfies TemplateVariable[]),
      parameters: JSON.stringify(result.parameters),
      presets: JSON.stringify(result.presets.map((preset) => ({ id: newId(), ...preset }))),
      external_auth: JSON.stringify(result.external_auth),
      declared_description: result.description ?? '',
      declared_icon: result.icon ?? '',
      updated_at: now,
    },
    resources: [...resourceRows(jobId, 'start', result.start_resources, now), ...resourceRows(jobId, 'stop', result.stop_resources, now)],
    agents: [],
  };
}

function buildCompletion(
  jobId: string,
  context: JobContext | undefined,
  result: CompletedBuild,
  now: string,
  protocol: Pick<JobProtocol, 'features' | 'quietHours'>,
): JobCompletion {
  const build = context?.build?.row;
  // A build that is gone leaves nothing to record but the job's end.
  if (!build) return { now, resources: [], agents: [] };
  const rows = resourceRows(jobId, build.transition, result.resources, now);
  const agents = rows.flatMap((row, index) =>
    (result.resources[index]?.agents ?? []).map((agent) => ({
      id: newId(),
      resource_id: row.id,
      name: agent.name,
      auth_token_hash: createHash('sha256').update(agent.auth_token).digest('hex'),
      auth_instance_id: agent.instance_id ?? '',
      definition: JSON.stringify({ ...agent, auth_token: '' }),
      lifecycle_state: 'created',
      created_at: now,
      updated_at: now,
      first_connected_at: null,
      last_connected_at: null,
      disconnected_at: null,
      started_at: null,
      ready_at: null,
    })),
  );
  const deadlines = build.transition === 'start' ? startDeadlines(context, new Date(now), protocol) : {};
  return {
    now,
    resources: rows,
    agents,
    build: {
      id: build.id,
      workspaceId: build.workspace_id,
      changes: {
        provisioner_state: Buffer.from(result.state_base64, 'base64'),
        daily_cost: result.resources.reduce((sum, resource) => sum + resource.daily_cost, 0),
        updated_at: now,
        ...deadlines,
      },
      deletesWorkspace: build.transition === 'delete',
    },
  };
}

/** A started workspace's shutdown deadlines, from its TTL and its template's autostop rules. */
function startDeadlines(
  context: JobContext | undefined,
  now: Date,
  protocol: Pick<JobProtocol, 'features' | 'quietHours'>,
): { deadline?: string | null; max_deadline?: string | null } {
  const workspace = context?.build?.workspace;
  const stored = context?.build?.template;
  if (!workspace || !stored) return {};
  const template = scheduleInEffect(stored, protocol.features);
  let deadlines: { deadline: Date | null; maxDeadline: Date | null };
  try {
    deadlines = computeDeadlines({
      now,
      workspaceTtlMs: workspace.ttl_ms,
      templateDefaultTtlMs: template.default_ttl_ms,
      allowUserAutostop: template.allow_user_autostop === 1,
      autostartSchedule: workspace.autostart_schedule,
      autostartDays: template.autostart_requirement_days,
      autostopRequirement: { daysBitmap: template.autostop_requirement_days, weeks: template.autostop_requirement_weeks },
      ...(protocol.quietHours && {
        userQuietHours: effectiveQuietHours(protocol.quietHours, context.build?.ownerQuietHours ?? '').schedule.text,
      }),
    });
  } catch {
    // A schedule that yields no future time leaves the workspace without an automatic stop.
    deadlines = { deadline: null, maxDeadline: null };
  }
  return { deadline: deadlines.deadline?.toISOString() ?? null, max_deadline: deadlines.maxDeadline?.toISOString() ?? null };
}

function resourceRows(jobId: string, transition: string, resources: readonly PlannedResource[], now: string): WorkspaceResourceRow[] {
  return resources.map((resource) => ({
    id: newId(),
    job_id: jobId,
    transition,
    name: resource.name,
    type: resource.type,
    hide: resource.hide ? 1 : 0,
    icon: resource.icon,
    daily_cost: resource.daily_cost,
    metadata: JSON.stringify(resource.metadata),
    // Tokens of planned agents are never kept: only builds hand tokens to real agents.
    planned_agents: JSON.stringify(resource.agents.map((agent) => ({ ...agent, auth_token: '' }))),
    created_at: now,
  }));
}

/**
 * Records a failed job. A job that stopped because it was canceled ends `canceled` rather than
 * `failed`, since stopping was what the user asked for.
 */
export async function failJob(
  protocol: JobProtocol,
  daemon: ConnectedDaemon,
  jobId: string,
  failure: {
    readonly error: string;
    readonly error_code?: string | undefined;
    readonly canceled?: boolean | undefined;
    readonly state_base64?: string | undefined;
    readonly logs?: readonly JobLogInput[] | undefined;
  },
): Promise<Announcing> {
  protocol = finishing(protocol);
  const job = await heldJob(protocol, daemon, jobId);
  await appendLastLines(protocol, job, failure.logs ?? []);
  const canceledOnRequest = failure.canceled === true && job.canceled_at !== null;
  // What a failed build did create is kept, so the next build can clean it up.
  const state = job.type === 'workspace_build' && failure.state_base64 ? Buffer.from(failure.state_base64, 'base64') : undefined;
  return finishJob(
    protocol,
    job,
    canceledOnRequest ? { error: '', error_code: '' } : { error: failure.error || 'failed', error_code: failure.error_code ?? '' },
    state,
  );
}

async function finishJob(
  protocol: JobProtocol,
  job: ProvisionerJobRow,
  outcome: { readonly error: string; readonly error_code: string },
  failedBuildState?: Buffer,
): Promise<Announcing> {
  await protocol.store.provisionerJobs.finish(job, outcome, failedBuildState);
  protocol.jobFinished?.(job.id);
  const announced = (async () => {
    await publishJobEvent(protocol, job.id, 'done');
    await publishWorkspaceOfJob(protocol, job);
  })();
  return { value: undefined, announced };
}

/** Tells watchers of the workspace a build job belongs to that it changed; `known` saves looking the workspace up. */
async function publishWorkspaceOfJob(protocol: JobProtocol, job: ProvisionerJobRow, known?: string): Promise<void> {
  if (job.type !== 'workspace_build') return;
  const workspaceId = known ?? (await protocol.store.provisionerJobs.workspaceIdOf(job));
  if (workspaceId) await protocol.pubsub.publish(workspaceEventsChannel(workspaceId), 'build');
}

/** Tells everyone following a job (log streams, the daemon holding it) that something happened. */
export async function publishJobEvent(events: { readonly pubsub: PubSub }, jobId: string, event: JobEvent): Promise<void> {
  await events.pubsub.publish(jobEventsChannel(jobId), event);
}
