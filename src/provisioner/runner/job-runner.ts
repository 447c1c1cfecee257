import { mkdirSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { extractTar } from '../../lib/archive/index.js';
import type * as wire from '../../sdk/wire/provisioner-protocol.js';
import {
  ProvisionerCanceledError,
  ProvisionerError,
  throwIfCanceled,
  type BuildInput,
  type LogLevel,
  type NameValue,
  type ParseInput,
  type PlannedResource,
  type Provisioner,
  type ProvisionerLog,
  type TemplateIssue,
  type Transition,
  type WorkspaceInfo,
} from '../provisioner.js';

/** A pino-compatible logger: structured fields first, then the message. */
export interface RunnerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** The last message of a job: the one the daemon acknowledges with `ack`. */
export type JobReport = Extract<wire.DaemonMessage, { readonly type: 'complete' | 'fail' }>;

/** What a job needs from whoever runs it: a way to talk to the daemon, a cancel signal, a scratch directory. */
export interface JobIo {
  /** Receives every `update`, then exactly one `complete` or `fail`. Must not throw. */
  send(message: wire.DaemonMessage): void;
  /** Fires when the job is canceled (an `update_ack` with `canceled`, a `cancel`, or the daemon stopping). */
  readonly signal: AbortSignal;
  /** Parent of the per-job temporary directory; created when missing. */
  readonly workDirectory: string;
  /** Timestamps of log lines. */
  now(): Date;
  /** How long a log line may wait before it is sent (default 250 ms). */
  readonly logFlushMs?: number;
  /** The longest gap between two `update`s, sent as a heartbeat even without logs (default 5000 ms). */
  readonly updateIntervalMs?: number;
  /** Where internal errors go besides the job's own log. */
  readonly logger?: RunnerLogger;
}

/** The stage names the UI and the reference runner use; each opens with an empty daemon line. */
const STAGE = {
  setup: 'Setting up',
  parse: 'Parsing template parameters',
  persistent: 'Detecting persistent resources',
  ephemeral: 'Detecting ephemeral resources',
  plan: 'Planning infrastructure',
  cleanup: 'Cleaning Up',
} as const;

const APPLY_STAGE: Readonly<Record<Transition, string>> = {
  start: 'Starting workspace',
  stop: 'Stopping workspace',
  delete: 'Destroying workspace',
};

/**
 * Stages provisioners name on their own lines. A line naming one of these is filed under the
 * runner's current stage instead, so that a plan during an import lands under `Detecting ...`
 * rather than opening a stage of its own without a header; any other (custom) stage is kept.
 */
const KNOWN_STAGES: ReadonlySet<string> = new Set([...Object.values(STAGE), ...Object.values(APPLY_STAGE)]);

const LOG_BATCH = 100;
const MAX_OUTPUT = 64 * 1024;
const MAX_STAGE = 256;
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const LEVEL_RANK: ReadonlyMap<string, number> = new Map([
  ['trace', 0],
  ['debug', 1],
  ['info', 2],
  ['warn', 3],
  ['error', 4],
]);
const INFO_RANK = 2;

/**
 * Runs one acquired job with a provisioner: extracts the archive into a temporary directory,
 * runs the stages of the job's type, streams logs as `update`s, then sends the report with the
 * lines not sent yet. Never rejects: every failure becomes a `fail` report. Resolves with the
 * report it sent, once the temporary directory is removed as well.
 */
export async function runJob(job: wire.AcquiredJob, provisioner: Provisioner, io: JobIo): Promise<JobReport> {
  const logs = new JobLogs(job, io);
  let directory: string | undefined;
  let report: JobReport;
  try {
    logs.beginStage(STAGE.setup);
    logs.daemonLine('info', `Reading the template with the ${job.provisioner} provisioner`);
    directory = makeJobDirectory(io.workDirectory);
    await extractArchive(job, directory);
    throwIfCanceled(io.signal);
    const result = await STAGES[job.type]({ job, provisioner, directory, logs, signal: io.signal });
    report = { type: 'complete', job_id: job.job_id, result };
  } catch (error) {
    report = failureReport(job, error, logs, io);
  }
  logs.beginStage(STAGE.cleanup);
  // The job's outcome does not wait for its directory to go: the report is recorded meanwhile, and
  // the next job is asked for only once this resolves, so directories never pile up.
  const removed = directory === undefined ? Promise.resolve() : removeDirectory(directory, job, io);
  // The last lines go with the report: stored with the job's end, without an `update` of their own.
  const last = logs.close();
  const sent: JobReport = last.length > 0 ? { ...report, logs: last } : report;
  io.send(sent);
  await removed;
  return sent;
}

/**
 * A new directory for one job under `parent`, which is made on first use (or after someone removed
 * it). One or two blocking calls: cheaper than a round through the thread pool and the event loop.
 */
function makeJobDirectory(parent: string): string {
  const prefix = join(parent, 'job-');
  try {
    return mkdtempSync(prefix);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    return mkdtempSync(prefix);
  }
}

/** A failure whose message is already what the user should read. */
class JobFailure extends Error {}

async function extractArchive(job: wire.AcquiredJob, directory: string): Promise<void> {
  try {
    await extractTar(Buffer.from(job.archive_base64, 'base64'), directory);
  } catch (error) {
    throw new JobFailure(`the template archive could not be extracted: ${messageOf(error)}`, { cause: error });
  }
}

async function removeDirectory(directory: string, job: wire.AcquiredJob, io: JobIo): Promise<void> {
  try {
    await rm(directory, { recursive: true, force: true });
  } catch (error) {
    // The job's outcome does not depend on it; an operator can clean the work directory.
    io.logger?.warn({ err: error, job_id: job.job_id, directory }, 'could not remove a job directory');
  }
}

interface StageContext {
  readonly job: wire.AcquiredJob;
  readonly provisioner: Provisioner;
  readonly directory: string;
  readonly logs: JobLogs;
  readonly signal: AbortSignal;
}

const STAGES: { readonly [Type in wire.JobType]: (context: StageContext) => Promise<Extract<wire.CompletedJob, { type: Type }>> } = {
  template_version_import: runImport,
  template_version_dry_run: runDryRun,
  workspace_build: runBuild,
};

async function runImport(context: StageContext): Promise<wire.CompletedImport> {
  const { job, provisioner, logs } = context;
  logs.beginStage(STAGE.parse);
  const parsed = await provisioner.parse(parseInput(context));
  const defaults = parsed.parameters.map((parameter) => ({ name: parameter.name, value: parameter.default_value }));
  logs.beginStage(STAGE.persistent);
  const start = await provisioner.plan({
    ...buildInput(context, 'start', defaults, placeholderWorkspace(job, 'import', 1)),
    importing: true,
  });
  logs.beginStage(STAGE.ephemeral);
  const stop = await provisioner.plan({
    ...buildInput(context, 'stop', defaults, placeholderWorkspace(job, 'import', 0)),
    importing: true,
  });
  return {
    type: 'template_version_import',
    readme: parsed.readme,
    variables: [...parsed.variables],
    parameters: parsed.parameters.map((parameter) => ({ ...parameter, options: [...parameter.options] })),
    presets: parsed.presets.map((preset) => ({ ...preset, parameters: [...preset.parameters] })),
    external_auth: [...parsed.externalAuth],
    ...parsed.metadata,
    start_resources: wireResources(start.resources),
    stop_resources: wireResources(stop.resources),
  };
}

async function runDryRun(context: StageContext): Promise<wire.CompletedDryRun> {
  const { job, provisioner, logs } = context;
  logs.beginStage(STAGE.plan);
  const workspace = job.workspace === null ? placeholderWorkspace(job, 'dry-run', 1) : { ...job.workspace, start_count: 1 };
  const planned = await provisioner.plan(buildInput(context, 'start', job.rich_parameter_values, workspace));
  return { type: 'template_version_dry_run', resources: wireResources(planned.resources) };
}

async function runBuild(context: StageContext): Promise<wire.CompletedBuild> {
  const { job, provisioner, logs } = context;
  if (job.workspace === null) throw new JobFailure('the workspace build job names no workspace');
  logs.beginStage(APPLY_STAGE[job.transition]);
  // Derived, not trusted: provisioners rely on it matching the transition.
  const workspace = { ...job.workspace, start_count: job.transition === 'start' ? 1 : 0 };
  const previousState = job.previous_state_base64 === null ? null : Buffer.from(job.previous_state_base64, 'base64');
  const applied = await provisioner.apply({ ...buildInput(context, job.transition, job.rich_parameter_values, workspace), previousState });
  return { type: 'workspace_build', resources: wireResources(applied.resources), state_base64: applied.state.toString('base64') };
}

function parseInput({ job, directory, logs, signal }: StageContext): ParseInput {
  return { directory, variableValues: job.user_variable_values, log: (line) => logs.provisionerLine(line), signal };
}

function buildInput(
  context: StageContext,
  transition: Transition,
  parameterValues: readonly NameValue[],
  workspace: WorkspaceInfo,
): BuildInput {
  return { ...parseInput(context), transition, parameterValues, workspace, accessUrl: context.job.access_url, previousState: null };
}

/** Imports and workspace-less dry runs have no workspace yet; templates still get one to expand. */
function placeholderWorkspace(job: wire.AcquiredJob, name: string, startCount: number): WorkspaceInfo {
  return { id: ZERO_UUID, name, owner: job.initiator_username, owner_id: ZERO_UUID, start_count: startCount };
}

/** The provisioner's shapes hold readonly arrays; the wire's are plain ones. */
function wireResources(resources: readonly PlannedResource[]): wire.PlannedResource[] {
  return resources.map((resource) => ({
    ...resource,
    metadata: [...resource.metadata],
    agents: resource.agents.map(({ metadata, ...agent }) => ({
      ...agent,
      env: { ...agent.env },
      display_apps: [...agent.display_apps],
      scripts: [...agent.scripts],
      apps: agent.apps.map((app) => ({ ...app, healthcheck: app.healthcheck === null ? null : { ...app.healthcheck } })),
      ...(metadata ? { metadata: [...metadata] } : {}),
    })),
  }));
}

function failureReport(job: wire.AcquiredJob, error: unknown, logs: JobLogs, io: JobIo): JobReport {
  const state = error instanceof ProvisionerError && error.state !== undefined ? { state_base64: error.state.toString('base64') } : {};
  // A provisioner interrupted by the signal may throw something else on its way out; it is still a cancel.
  if (error instanceof ProvisionerCanceledError || io.signal.aborted) {
    return { type: 'fail', job_id: job.job_id, error: 'canceled', canceled: true, ...state };
  }
  if (error instanceof JobFailure) {
    logs.daemonLine('error', error.message);
    return { type: 'fail', job_id: job.job_id, error: error.message };
  }
  if (error instanceof ProvisionerError) {
    logs.daemonLine('error', error.message);
    for (const issue of error.issues) {
      const text = issueText(issue);
      // Provisioners often summarise their issues in the message already; say each thing once.
      if (!error.message.includes(text)) logs.daemonLine('error', text);
    }
    return {
      type: 'fail',
      job_id: job.job_id,
      error: error.message,
      ...(error.code === undefined ? {} : { error_code: error.code }),
      ...state,
    };
  }
  const message = `internal provisioner error: ${messageOf(error)}`;
  io.logger?.error({ err: error, job_id: job.job_id, provisioner: job.provisioner }, 'provisioner job failed with an unexpected error');
  logs.daemonLine('error', message);
  return { type: 'fail', job_id: job.job_id, error: message };
}

/** The same `file:line: field message` form the native provisioner summarises issues in. */
function issueText(issue: TemplateIssue): string {
  const place = issue.line > 0 ? `${issue.file}:${issue.line}` : issue.file;
  return `${place}: ${issue.field === '' ? '' : `${issue.field} `}${issue.message}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The job's log stream: lines are queued and sent as one `update` when the batch is full or after
 * the flush delay, and an `update` goes out at least every update interval as the heartbeat that
 * keeps the daemon's hang detector away.
 */
class JobLogs {
  readonly #job: wire.AcquiredJob;
  readonly #io: JobIo;
  readonly #flushMs: number;
  readonly #heartbeatMs: number;
  readonly #minimumRank: number;
  #queue: wire.JobLogInput[] = [];
  #stage: string = STAGE.setup;
  #flushTimer: NodeJS.Timeout | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(job: wire.AcquiredJob, io: JobIo) {
    this.#job = job;
    this.#io = io;
    this.#flushMs = io.logFlushMs ?? 250;
    this.#heartbeatMs = io.updateIntervalMs ?? 5000;
    this.#minimumRank = LEVEL_RANK.get(job.log_level) ?? INFO_RANK;
    this.#armHeartbeat();
  }

  /** Opens a stage with the empty daemon line the UI uses as its header. */
  beginStage(stage: string): void {
    this.#stage = stage;
    this.daemonLine('info', '');
  }

  daemonLine(level: LogLevel, output: string): void {
    this.#push({ level, source: 'provisioner_daemon', stage: this.#stage, output });
  }

  provisionerLine(line: ProvisionerLog): void {
    // Below the job's log level (debug and trace unless the build asked for them): dropped.
    if ((LEVEL_RANK.get(line.level) ?? INFO_RANK) < this.#minimumRank) return;
    const stage = KNOWN_STAGES.has(line.stage) || line.stage === '' ? this.#stage : line.stage;
    this.#push({ level: line.level, source: 'provisioner', stage, output: line.output });
  }

  /** Stops the timers and hands back what is still queued (fewer than a batch); later lines are dropped. */
  close(): wire.JobLogInput[] {
    this.#closed = true;
    clearTimeout(this.#flushTimer);
    clearTimeout(this.#heartbeatTimer);
    const rest = this.#queue;
    this.#queue = [];
    return rest;
  }

  #push(line: Omit<wire.JobLogInput, 'created_at'>): void {
    if (this.#closed) return;
    this.#queue.push({
      created_at: this.#io.now().toISOString(),
      level: line.level,
      source: line.source,
      stage: line.stage.slice(0, MAX_STAGE),
      output: line.output.length > MAX_OUTPUT ? line.output.slice(0, MAX_OUTPUT) : line.output,
    });
    if (this.#queue.length >= LOG_BATCH) this.#flush();
    else this.#flushTimer ??= setTimeout(() => this.#flush(), this.#flushMs);
  }

  #flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    const logs = this.#queue;
    this.#queue = [];
    this.#io.send({ type: 'update', job_id: this.#job.job_id, logs });
    this.#armHeartbeat();
  }

  #armHeartbeat(): void {
    clearTimeout(this.#heartbeatTimer);
    this.#heartbeatTimer = setTimeout(() => this.#flush(), this.#heartbeatMs);
  }
}
