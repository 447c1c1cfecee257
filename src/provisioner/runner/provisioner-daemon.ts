import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { Value } from '@sinclair/typebox/value';
import type { RawData, WebSocket } from 'ws';
import { systemClock, type Clock } from '../../lib/clock.js';
import { closeSocket } from '../../lib/close-socket.js';
import { reconnectLoop, type ReconnectBackoff } from '../../lib/reconnect.js';
import { StateChanges } from '../../lib/state-changes.js';
import { contextFromHeaders, tracer } from '../../lib/trace-context.js';
import { dialProvisionerDaemon, type ProvisionerDaemonIdentity } from '../../sdk/provisioner-daemon-socket.js';
import { ServerMessage, type AcquiredJob, type DaemonMessage } from '../../sdk/wire/provisioner-protocol.js';
import type { Provisioner } from '../provisioner.js';
import { runJob, type JobIo, type JobReport, type RunnerLogger } from './job-runner.js';

/** How to reach the daemon, what to announce, and how to run jobs. */
export interface ProvisionerDaemonOptions extends Omit<ProvisionerDaemonIdentity, 'provisioners'> {
  /** The provisioners this daemon runs, by type; the keys are announced as its provisioner types. */
  readonly provisioners: ReadonlyMap<string, Provisioner>;
  /** Parent of the per-job temporary directories. */
  readonly workDirectory: string;
  readonly logger: RunnerLogger;
  /** Heartbeat: the longest gap between two `update`s of a running job (default 5000 ms). */
  readonly updateIntervalMs?: number;
  /** How long a job log line may wait before it is sent (default 250 ms). */
  readonly logFlushMs?: number;
  readonly reconnect?: ReconnectBackoff;
  /** Timestamps of job log lines (default: wall clock). */
  readonly clock?: Clock;
}

/** A running provisioner daemon. */
export interface ProvisionerDaemonHandle {
  /** True while the job-protocol WebSocket is open. */
  readonly connected: boolean;
  /** Jobs whose `complete` or `fail` the daemon acknowledged (or refused for good). */
  readonly jobsFinished: number;
  /** Resolves once `jobsFinished` reaches `count`. */
  waitForJobs(count: number): Promise<void>;
  /**
   * Stops acquiring; cancels a running job and reports it as a canceled `fail`; waits (up to a few
   * seconds) for the daemon to acknowledge; then closes the socket. Safe to call more than once.
   */
  stop(): Promise<void>;
}

/** How long stop() waits for the daemon's answers before closing anyway. */
const STOP_GRACE_MS = 5000;
/** Log-carrying updates kept while disconnected; older ones are dropped past this. */
const MAX_BACKLOG = 100;
/** How long a closed socket may take to finish the closing handshake. */
const CLOSE_GRACE_MS = 1000;

/**
 * Starts a provisioner daemon: dials the daemon's job protocol, acquires one job at a time, runs
 * it with the matching provisioner and reports it, and reconnects with jittered exponential
 * backoff when the connection drops.
 *
 * A job keeps running while disconnected. Its log updates wait in a bounded backlog and its
 * report is kept until acknowledged, both resent after reconnecting (the daemon ignores reports
 * for jobs it no longer assigns to us). If the daemon stays away longer than its hang timeout,
 * its hang detector fails the job; our late report is then refused and dropped.
 */
export function startProvisionerDaemon(options: ProvisionerDaemonOptions): ProvisionerDaemonHandle {
  return new ProvisionerDaemon(options);
}

interface RunningJob {
  readonly id: string;
  readonly controller: AbortController;
}

class ProvisionerDaemon implements ProvisionerDaemonHandle {
  readonly #options: ProvisionerDaemonOptions;
  readonly #logger: RunnerLogger;
  readonly #stopping = new AbortController();
  readonly #changes = new StateChanges();
  readonly #loop: Promise<void>;
  #socket: WebSocket | undefined;
  #acquiring = false;
  #job: RunningJob | undefined;
  /** The report of the last job, sent and not yet acknowledged. */
  #report: JobReport | undefined;
  /** The running job has sent its report and is only cleaning up. */
  #finishing = false;
  /** A job that arrived while the one before was cleaning up: it starts once that is done. */
  #next: AcquiredJob | undefined;
  #backlog: DaemonMessage[] = [];
  #finished = 0;
  #stopped: Promise<void> | undefined;

  constructor(options: ProvisionerDaemonOptions) {
    this.#options = options;
    this.#logger = options.logger;
    this.#loop = this.#connectLoop();
  }

  get connected(): boolean {
    return this.#socket !== undefined && this.#socket.readyState === this.#socket.OPEN;
  }

  get jobsFinished(): number {
    return this.#finished;
  }

  waitForJobs(count: number): Promise<void> {
    return this.#changes.until(() => this.#finished >= count);
  }

  stop(): Promise<void> {
    this.#stopped ??= this.#shutdown();
    return this.#stopped;
  }

  async #shutdown(): Promise<void> {
    this.#stopping.abort();
    if (this.#acquiring) this.#write({ type: 'cancel_acquire' });
    this.#job?.controller.abort();
    // Bounded: a provisioner that ignores its signal must not hold the process forever.
    await this.#changes.until(() => this.#job === undefined, STOP_GRACE_MS);
    // Without a connection nothing more can be said; the daemon's hang detector takes over.
    await this.#changes.until(() => !this.connected || (!this.#acquiring && this.#report === undefined), STOP_GRACE_MS);
    await closeSocket(this.#socket, 'provisioner daemon stopped', CLOSE_GRACE_MS);
    await this.#loop;
  }

  #connectLoop(): Promise<void> {
    return reconnectLoop({
      signal: this.#stopping.signal,
      backoff: this.#options.reconnect,
      dial: () => dialProvisionerDaemon(identityOf(this.#options)),
      onDialError: (error) => this.#logger.warn({ err: error, url: this.#options.url }, 'could not connect to the daemon; retrying'),
      serve: (socket) => this.#serve(socket),
      discard: (socket) => socket.close(1000, 'provisioner daemon stopped'),
    });
  }

  /** Speaks the protocol on one connection; resolves when it closes. */
  #serve(socket: WebSocket): Promise<void> {
    return new Promise((resolve) => {
      this.#socket = socket;
      socket.on('message', (data, isBinary) => this.#receive(data, isBinary));
      socket.on('error', (error) => this.#logger.warn({ err: error }, 'provisioner daemon connection error'));
      socket.once('close', (code, reason) => {
        this.#socket = undefined;
        this.#acquiring = false;
        if (!this.#stopping.signal.aborted)
          this.#logger.warn({ code, reason: reason.toString('utf8') }, 'lost the connection to the daemon; reconnecting');
        this.#changes.notify();
        resolve();
      });
      this.#logger.info({ url: this.#options.url, name: this.#options.name }, 'provisioner daemon connected');
      this.#resume();
    });
  }

  /** After (re)connecting: deliver what the last connection could not, or ask for work. */
  #resume(): void {
    for (const message of this.#backlog.splice(0)) this.#write(message);
    if (this.#report !== undefined) this.#writeReport(this.#report);
    else this.#acquire();
  }

  #acquire(): void {
    if (this.#stopping.signal.aborted || this.#acquiring || this.#job !== undefined || this.#report !== undefined || !this.connected)
      return;
    this.#acquiring = true;
    this.#write({ type: 'acquire' });
  }

  #receive(data: RawData, isBinary: boolean): void {
    const message = isBinary ? undefined : parseServerMessage(rawText(data));
    if (message === undefined) {
      this.#logger.warn({}, 'ignoring a message from the daemon that is not part of the protocol');
      return;
    }
    switch (message.type) {
      case 'job':
        this.#acquiring = false;
        // Asked for with the last report, it may come while that job's directory is still being removed.
        if (this.#job !== undefined && this.#finishing && this.#next === undefined) this.#next = message.job;
        else this.#start(message.job);
        break;
      case 'no_job':
        this.#acquiring = false;
        this.#changes.notify();
        // Only expected after cancel_acquire; otherwise ask again, after a pause so it cannot spin.
        setTimeout(() => this.#acquire(), this.#options.reconnect?.initialMs ?? 250).unref();
        break;
      case 'update_ack':
        if (message.canceled) this.#cancel(message.job_id);
        break;
      case 'cancel':
        this.#cancel(message.job_id);
        break;
      case 'ack':
        this.#settle(message.job_id);
        break;
      case 'error':
        this.#refused(message.message, message.job_id);
        break;
    }
  }

  #start(job: AcquiredJob): void {
    if (this.#stopping.signal.aborted || this.#job !== undefined || this.#report !== undefined) {
      // Raced with stop() or a job still unreported; the daemon must not wait on us for it.
      const error = this.#stopping.signal.aborted
        ? 'the provisioner daemon shut down before the job started'
        : 'the provisioner daemon is busy with another job';
      this.#write({ type: 'fail', job_id: job.job_id, error });
      return;
    }
    const provisioner = this.#options.provisioners.get(job.provisioner);
    if (provisioner === undefined) {
      this.#send({ type: 'fail', job_id: job.job_id, error: `this provisioner daemon has no "${job.provisioner}" provisioner` });
      return;
    }
    const running: RunningJob = { id: job.job_id, controller: new AbortController() };
    this.#job = running;
    this.#logger.info({ job_id: job.job_id, type: job.type, provisioner: job.provisioner }, 'running provisioner job');
    // A child of the daemon's span of the job, whichever process this runs in.
    const parent = contextFromHeaders(job.trace_metadata);
    const span = tracer.startSpan(
      `build ${job.type}`,
      { kind: SpanKind.CONSUMER, attributes: { 'cove.job.id': job.job_id, 'cove.job.provisioner': job.provisioner } },
      parent,
    );
    void context
      .with(trace.setSpan(parent, span), () => runJob(job, provisioner, this.#jobIo(running.controller.signal)))
      .catch((error: unknown) => this.#runnerFailed(job, error))
      .then((report) => {
        span.setAttribute('cove.job.outcome', report.type);
        if (report.type === 'fail') span.setStatus({ code: SpanStatusCode.ERROR, message: report.error });
        span.end();
        this.#jobDone(report);
      });
  }

  #jobIo(signal: AbortSignal): JobIo {
    const { workDirectory, logFlushMs, updateIntervalMs, clock = systemClock } = this.#options;
    return {
      send: (message) => this.#send(message),
      signal,
      workDirectory,
      now: () => clock.now(),
      logger: this.#logger,
      ...(logFlushMs === undefined ? {} : { logFlushMs }),
      ...(updateIntervalMs === undefined ? {} : { updateIntervalMs }),
    };
  }

  /** runJob reports its own failures; reaching this is a bug, but the daemon must still hear of the job. */
  #runnerFailed(job: AcquiredJob, error: unknown): JobReport {
    this.#logger.error({ err: error, job_id: job.job_id }, 'the job runner failed');
    const report: JobReport = {
      type: 'fail',
      job_id: job.job_id,
      error: `internal provisioner error: ${error instanceof Error ? error.message : String(error)}`,
    };
    this.#send(report);
    return report;
  }

  #jobDone(report: JobReport): void {
    this.#logger.info(
      { job_id: report.job_id, outcome: report.type, ...(report.type === 'fail' ? { error: report.error } : {}) },
      'provisioner job finished',
    );
    this.#job = undefined;
    this.#finishing = false;
    this.#changes.notify();
    const next = this.#next;
    this.#next = undefined;
    if (next) this.#start(next);
    else this.#acquire();
  }

  #cancel(jobId: string): void {
    const job = this.#job;
    if (job === undefined || job.id !== jobId || job.controller.signal.aborted) return;
    this.#logger.info({ job_id: jobId }, 'canceling provisioner job');
    job.controller.abort();
  }

  /** The report of `jobId` is recorded: ready for the next job. */
  #settle(jobId: string): void {
    if (this.#report?.job_id !== jobId) return;
    this.#report = undefined;
    this.#finished += 1;
    this.#changes.notify();
    this.#acquire();
  }

  #refused(message: string, jobId: string | undefined): void {
    this.#logger.warn({ job_id: jobId, message }, 'the daemon refused a message');
    // A refused report will not be accepted by resending it either (the job is no longer ours),
    // and the next job it asked for is not coming: ask again.
    if (jobId === undefined || this.#report?.job_id !== jobId) return;
    this.#acquiring = false;
    this.#settle(jobId);
  }

  /** Sends now, or keeps for the next connection what must not be lost. */
  #send(message: DaemonMessage): void {
    if (message.type === 'complete' || message.type === 'fail') {
      // The next job is asked for with the report, unless stopping: one message, and on the
      // daemon's side one step for both.
      this.#report = this.#stopping.signal.aborted ? message : { ...message, acquire: true };
      this.#finishing = this.#job?.id === message.job_id;
      this.#writeReport(this.#report);
      return;
    }
    if (this.connected) {
      this.#write(message);
      return;
    }
    // Reports are resent from #report; heartbeats without logs mean nothing later.
    if (message.type !== 'update' || message.logs.length === 0) return;
    this.#backlog.push(message);
    if (this.#backlog.length > MAX_BACKLOG) {
      this.#backlog.shift();
      this.#logger.warn({ job_id: message.job_id }, 'dropping job logs: disconnected from the daemon for too long');
    }
  }

  /** Sends a job's report; one that asks for the next job counts as asking. */
  #writeReport(report: JobReport): void {
    if (!this.connected) return;
    if (report.acquire === true) this.#acquiring = true;
    this.#write(report);
  }

  #write(message: DaemonMessage): void {
    const socket = this.#socket;
    if (socket === undefined || socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify(message), (error) => {
      if (error) this.#logger.warn({ err: error, type: message.type }, 'could not send to the daemon');
    });
  }

  /** Resolves when `done()` holds, re-checked on every state change; or after `timeoutMs`. */
}

function identityOf(options: ProvisionerDaemonOptions): ProvisionerDaemonIdentity {
  const { url, organization, id, name, tags, key, sessionToken } = options;
  return { url, organization, id, name, tags, key, sessionToken, provisioners: [...options.provisioners.keys()] };
}

function parseServerMessage(text: string): ServerMessage | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return Value.Check(ServerMessage, value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}
