import { createHash } from 'node:crypto';
import { HttpProblem } from '../lib/errors.js';
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
import { parseJson } from '../store/json-column.js';
import { getFileById } from '../store/queries/files.js';
import * as jobs from '../store/queries/provisioner-jobs.js';
import { getUserById } from '../store/queries/users.js';
import { getBuildByJobId, getWorkspaceById } from '../store/queries/workspaces.js';
import type { Store } from '../store/store.js';
import { jobEventsChannel, type JobEvent } from './provisioner-events.js';
import { workspaceEventsChannel } from './workspace-events.js';
import { computeDeadlines } from './schedule/index.js';
import { daemonTakesJob, type ProvisionerTags } from './provisioner-tags.js';

/**
 * The daemon's side of the job protocol: handing jobs to provisioner daemons and recording what
 * they report. These functions act as the provisioner system itself, not as a user: the daemon
 * was authenticated when it connected (by key or by an administrator's session), and each call
 * checks that the job is one this daemon holds.
 */

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
export async function registerDaemon(store: Store, daemon: ConnectedDaemon): Promise<void> {
  const now = store.nowIso();
  const columns = {
    organization_id: daemon.organizationId,
    name: daemon.name,
    provisioners: JSON.stringify(daemon.provisioners),
    tags: JSON.stringify(daemon.tags),
    key_id: daemon.keyId,
    version: daemon.version,
    last_seen_at: now,
  };
  await store.db
    .insertInto('provisioner_daemons')
    .values({ id: daemon.id, ...columns, api_version: '1.0', created_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet(columns))
    .execute();
}

/** Marks a daemon as seen now. */
export async function touchDaemon(store: Store, daemonId: string): Promise<void> {
  await store.db.updateTable('provisioner_daemons').set({ last_seen_at: store.nowIso() }).where('id', '=', daemonId).execute();
}

/**
 * Claims the oldest queued job this daemon may run, or returns undefined when there is none.
 * Claiming is a conditional update, so two daemons never get the same job.
 */
export async function acquireJob(store: Store, daemon: ConnectedDaemon, accessUrl: string): Promise<AcquiredJob | undefined> {
  const queued = await jobs.listQueuedJobs(store.db, daemon.organizationId, daemon.provisioners);
  for (const job of queued) {
    if (!daemonTakesJob(daemon.tags, parseJson<ProvisionerTags>(job.tags, {}))) continue;
    if (!(await jobs.claimJob(store.db, job.id, daemon.id, store.nowIso()))) continue;
    try {
      const acquired = await describeJob(store, { ...job, worker_id: daemon.id }, accessUrl);
      if (job.type === 'workspace_build') await publishWorkspaceOfJob(store, job.id);
      return acquired;
    } catch (error) {
      // A job that cannot be described (its file is gone, say) fails at once rather than hanging.
      await finishJob(store, job.id, { error: `the job cannot be started: ${(error as Error).message}`, error_code: '' });
      continue;
    }
  }
  return undefined;
}

async function describeJob(store: Store, job: jobs.ProvisionerJobRow, accessUrl: string): Promise<AcquiredJob> {
  const file = await getFileById(store.db, job.file_id);
  if (!file) throw new Error('its template file no longer exists');
  const initiator = await getUserById(store.db, job.initiator_id);
  const input = parseJson<JobInput>(job.input, {});
  if (job.type === 'workspace_build') return describeBuildJob(store, job, file.data, initiator?.username ?? '', accessUrl);
  return {
    job_id: job.id,
    type: job.type as AcquiredJob['type'],
    created_at: job.created_at,
    provisioner: job.provisioner,
    initiator_username: initiator?.username ?? '',
    access_url: accessUrl,
    archive_base64: file.data.toString('base64'),
    user_variable_values: [...(input.user_variable_values ?? [])],
    rich_parameter_values: [...(input.rich_parameter_values ?? [])],
    workspace:
      job.type === 'template_version_dry_run'
        ? {
            id: '00000000-0000-0000-0000-000000000000',
            name: input.workspace_name || 'dryrun',
            owner: initiator?.username ?? '',
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

async function describeBuildJob(
  store: Store,
  job: jobs.ProvisionerJobRow,
  archive: Buffer,
  initiator: string,
  accessUrl: string,
): Promise<AcquiredJob> {
  const build = await getBuildByJobId(store.db, job.id);
  if (!build) throw new Error('its workspace build no longer exists');
  const workspace = await getWorkspaceById(store.db, build.workspace_id);
  if (!workspace) throw new Error('its workspace no longer exists');
  const owner = await getUserById(store.db, workspace.owner_id);
  const version = await store.db
    .selectFrom('template_versions')
    .select('variables')
    .where('id', '=', build.template_version_id)
    .executeTakeFirst();
  const variables = parseJson<TemplateVariable[]>(version?.variables, []);
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
      owner: owner?.username ?? '',
      owner_id: workspace.owner_id,
      start_count: transition === 'start' ? 1 : 0,
    },
    workspace_build_id: build.id,
    transition,
    previous_state_base64:
      build.provisioner_state && build.provisioner_state.length > 0 ? Buffer.from(build.provisioner_state).toString('base64') : null,
    log_level: 'info',
  };
}

/** The job, if this daemon holds it and it is not finished; otherwise a refusal naming why. */
async function heldJob(store: Store, daemonId: string, jobId: string): Promise<jobs.ProvisionerJobRow> {
  const job = await jobs.getJobById(store.db, jobId);
  if (!job || job.worker_id !== daemonId) throw new HttpProblem(403, "You don't own this job.");
  if (job.completed_at) throw new HttpProblem(409, 'The job is already finished.');
  return job;
}

/** A heartbeat with log lines. Answers whether the job was canceled meanwhile. */
export async function updateJob(
  store: Store,
  daemonId: string,
  jobId: string,
  logs: readonly JobLogInput[],
): Promise<{ canceled: boolean }> {
  const job = await heldJob(store, daemonId, jobId);
  await store.db.transaction().execute(async (trx) => {
    await jobs.insertJobLogs(
      trx,
      jobId,
      logs.map((log) => ({ created_at: log.created_at, source: log.source, level: log.level, stage: log.stage, output: log.output })),
    );
    await trx.updateTable('provisioner_jobs').set({ updated_at: store.nowIso() }).where('id', '=', jobId).execute();
  });
  if (logs.length > 0) await publishJobEvent(store, jobId, 'logs');
  return { canceled: job.canceled_at !== null };
}

/** Records a finished job with its results. */
export async function completeJob(store: Store, daemonId: string, jobId: string, result: CompletedJob): Promise<void> {
  const job = await heldJob(store, daemonId, jobId);
  if (result.type !== job.type) throw new HttpProblem(400, `A ${job.type} job cannot complete with a ${result.type} result.`);
  if (result.type === 'template_version_import') {
    const missing = result.variables.filter((variable) => variable.required && variable.value === '').map((v) => v.name);
    if (missing.length > 0) {
      await finishJob(store, jobId, {
        error: `required template variables need values: ${missing.join(', ')}`,
        error_code: 'REQUIRED_TEMPLATE_VARIABLES',
      });
      return;
    }
    const unconfigured = result.external_auth.find(() => true);
    if (unconfigured) {
      await finishJob(store, jobId, { error: `external auth provider "${unconfigured.id}" is not configured`, error_code: '' });
      return;
    }
  }
  const now = store.nowIso();
  await store.db.transaction().execute(async (trx) => {
    if (result.type === 'template_version_import') await storeImport(trx, jobId, result, now);
    if (result.type === 'template_version_dry_run') {
      await jobs.insertResources(trx, resourceRows(jobId, 'start', result.resources, now));
    }
    if (result.type === 'workspace_build') await storeBuild(trx, jobId, result, now);
    await trx
      .updateTable('provisioner_jobs')
      .set({ completed_at: now, updated_at: now })
      .where('id', '=', jobId)
      .where('completed_at', 'is', null)
      .execute();
  });
  await publishJobEvent(store, jobId, 'done');
  await publishWorkspaceOfJob(store, jobId);
}

async function storeImport(db: Store['db'], jobId: string, result: CompletedImport, now: string): Promise<void> {
  await db
    .updateTable('template_versions')
    .set({
      readme: result.readme,
      variables: JSON.stringify(result.variables satisfies TemplateVariable[]),
      parameters: JSON.stringify(result.parameters),
      presets: JSON.stringify(result.presets.map((preset) => ({ id: newId(), ...preset }))),
      external_auth: JSON.stringify(result.external_auth),
      updated_at: now,
    })
    .where('job_id', '=', jobId)
    .execute();
  await jobs.insertResources(db, [
    ...resourceRows(jobId, 'start', result.start_resources, now),
    ...resourceRows(jobId, 'stop', result.stop_resources, now),
  ]);
}

async function storeBuild(db: Store['db'], jobId: string, result: CompletedBuild, now: string): Promise<void> {
  const build = await getBuildByJobId(db, jobId);
  if (!build) return;
  const rows = resourceRows(jobId, build.transition, result.resources, now);
  await jobs.insertResources(db, rows);
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
  if (agents.length > 0) await db.insertInto('workspace_agents').values(agents).execute();
  await db
    .updateTable('workspace_builds')
    .set({
      provisioner_state: Buffer.from(result.state_base64, 'base64'),
      daily_cost: result.resources.reduce((sum, resource) => sum + resource.daily_cost, 0),
      updated_at: now,
    })
    .where('id', '=', build.id)
    .execute();
  if (build.transition === 'delete') {
    await db.updateTable('workspaces').set({ deleted: 1, updated_at: now }).where('id', '=', build.workspace_id).execute();
  }
  if (build.transition === 'start') await setDeadlines(db, build.id, build.workspace_id, new Date(now));
}

/** A started workspace's shutdown deadlines, from its TTL and its template's autostop rules. */
async function setDeadlines(db: Store['db'], buildId: string, workspaceId: string, now: Date): Promise<void> {
  const workspace = await getWorkspaceById(db, workspaceId);
  if (!workspace) return;
  const template = await db.selectFrom('templates').selectAll().where('id', '=', workspace.template_id).executeTakeFirst();
  if (!template) return;
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
    });
  } catch {
    // A schedule that yields no future time leaves the workspace without an automatic stop.
    deadlines = { deadline: null, maxDeadline: null };
  }
  const { deadline, maxDeadline } = deadlines;
  await db
    .updateTable('workspace_builds')
    .set({ deadline: deadline?.toISOString() ?? null, max_deadline: maxDeadline?.toISOString() ?? null })
    .where('id', '=', buildId)
    .execute();
}

function resourceRows(jobId: string, transition: string, resources: readonly PlannedResource[], now: string): jobs.WorkspaceResourceRow[] {
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
  store: Store,
  daemonId: string,
  jobId: string,
  failure: {
    readonly error: string;
    readonly error_code?: string | undefined;
    readonly canceled?: boolean | undefined;
    readonly state_base64?: string | undefined;
  },
): Promise<void> {
  const job = await heldJob(store, daemonId, jobId);
  const canceledOnRequest = failure.canceled === true && job.canceled_at !== null;
  // What a failed build did create is kept, so the next build can clean it up.
  if (job.type === 'workspace_build' && failure.state_base64) {
    await store.db
      .updateTable('workspace_builds')
      .set({ provisioner_state: Buffer.from(failure.state_base64, 'base64') })
      .where('job_id', '=', jobId)
      .execute();
  }
  await finishJob(
    store,
    jobId,
    canceledOnRequest ? { error: '', error_code: '' } : { error: failure.error || 'failed', error_code: failure.error_code ?? '' },
  );
}

async function finishJob(store: Store, jobId: string, outcome: { readonly error: string; readonly error_code: string }): Promise<void> {
  const now = store.nowIso();
  await store.db
    .updateTable('provisioner_jobs')
    .set({ completed_at: now, updated_at: now, error: outcome.error, error_code: outcome.error_code })
    .where('id', '=', jobId)
    .where('completed_at', 'is', null)
    .execute();
  await publishJobEvent(store, jobId, 'done');
  await publishWorkspaceOfJob(store, jobId);
}

/** Tells watchers of the workspace a build job belongs to that it changed. */
async function publishWorkspaceOfJob(store: Store, jobId: string): Promise<void> {
  const build = await getBuildByJobId(store.db, jobId);
  if (build) await store.pubsub.publish(workspaceEventsChannel(build.workspace_id), 'build');
}

/** Tells everyone following a job (log streams, the daemon holding it) that something happened. */
export async function publishJobEvent(store: Store, jobId: string, event: JobEvent): Promise<void> {
  await store.pubsub.publish(jobEventsChannel(jobId), event);
}
