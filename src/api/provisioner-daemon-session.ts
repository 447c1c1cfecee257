import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import { readProtocolMessage } from './protocol-message.js';
import { JOB_POSTED_CHANNEL, jobEventsChannel } from '../domain/provisioner-events.js';
import {
  acquireJob,
  type Announcing,
  type ClaimedJob,
  completeJob,
  failJob,
  registerDaemon,
  touchDaemon,
  updateJob,
  type ConnectedDaemon,
  type JobProtocol,
} from '../domain/provisioner-job-protocol.js';
import type { ConnectedDaemons } from '../domain/connected-daemons.js';
import { HttpProblem } from '../lib/errors.js';
import type { ApiObserver } from './api-observer.js';
import { JobSpans } from './job-spans.js';
import { DaemonMessage, type ServerMessage } from '../sdk/wire/index.js';

/** How often a waiting daemon looks for jobs even without a notification (one may be lost). */
const ACQUIRE_POLL_MS = 5_000;
/**
 * How often the connection is pinged and the daemon's `last_seen_at` refreshed: other replicas
 * take a daemon not seen for 45 s as gone (and fail its jobs), so four heartbeats fit in that.
 */
const HEARTBEAT_MS = 10_000;

/**
 * One provisioner daemon's connection: hands it jobs when it asks, records its updates, and tells
 * it when a job it holds is canceled. Messages are handled one at a time, in order.
 */
export class ProvisionerDaemonSession {
  #acquiring = false;
  #wake: (() => void) | undefined;
  #closed = false;
  #queue = Promise.resolve();
  /** The jobs this daemon holds: what their claim read, and the end of following their events. */
  readonly #held = new Map<string, { readonly claimed: ClaimedJob; readonly unfollow: () => Promise<void> }>();
  #stopPosted: (() => Promise<void>) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  readonly #spans: JobSpans;

  constructor(
    private readonly socket: WebSocket,
    private readonly protocol: JobProtocol,
    private readonly daemon: ConnectedDaemon,
    private readonly accessUrl: string,
    private readonly log: FastifyBaseLogger,
    private readonly watchers: {
      /** The daemons connected to this server; a cancel ends at once a job none alive holds. */
      readonly connected: ConnectedDaemons;
      /** Told of finished jobs, for the metrics; absent when they are off. */
      readonly observer?: ApiObserver | undefined;
    },
  ) {
    this.#spans = new JobSpans(daemon.name);
  }

  /**
   * Registers the daemon and starts serving its messages. Listeners go on the socket before
   * anything is awaited: a daemon sends `acquire` as soon as it is connected, and a message
   * arriving with no listener would be lost. Messages wait in the queue until registration is done.
   */
  async start(): Promise<void> {
    let registered!: () => void;
    this.#queue = new Promise<void>((resolve) => (registered = resolve));
    this.socket.on('message', (data, isBinary) => {
      if (isBinary) return this.#send({ type: 'error', message: 'messages are JSON text frames' });
      this.#queue = this.#queue.then(() => this.#handle(data.toString())).catch((error: unknown) => this.#report(error));
    });
    this.socket.on('close', () => void this.#close());
    this.watchers.connected.add(this.daemon.id);
    try {
      await registerDaemon(this.protocol, this.daemon);
      this.#stopPosted = await this.protocol.pubsub.subscribe(JOB_POSTED_CHANNEL, (organizationId) => {
        if (organizationId === this.daemon.organizationId) this.#wake?.();
      });
    } finally {
      registered();
    }
    this.#heartbeat = setInterval(() => {
      if (this.socket.readyState === this.socket.OPEN) this.socket.ping();
      void touchDaemon(this.protocol, this.daemon).catch(() => undefined);
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  async #handle(text: string): Promise<void> {
    const read = readProtocolMessage(DaemonMessage, text);
    if ('problem' in read) return this.#send({ type: 'error', message: read.problem });
    const { message } = read;
    try {
      await this.#serve(message);
    } catch (error) {
      // Naming the job lets the daemon drop a report that will never be accepted, and go on.
      this.#report(error, 'job_id' in message ? message.job_id : undefined);
    }
  }

  async #serve(message: DaemonMessage): Promise<void> {
    switch (message.type) {
      case 'acquire':
        if (!this.#acquiring) void this.#acquireLoop();
        return;
      case 'cancel_acquire':
        if (this.#acquiring) {
          this.#acquiring = false;
          this.#wake?.();
        }
        return;
      case 'update': {
        const { job_id: jobId, logs } = message;
        const { canceled } = await this.#spans.step(jobId, 'update', () => updateJob(this.protocol, this.daemon, jobId, logs));
        return this.#send({ type: 'update_ack', job_id: message.job_id, canceled });
      }
      case 'complete': {
        const { job_id: jobId, result, logs } = message;
        const claimed = this.#held.get(jobId)?.claimed;
        this.#announcing(
          await this.#spans.step(jobId, 'complete', () => completeJob(this.protocol, this.daemon, jobId, result, logs, claimed)),
        );
        this.#spans.end(jobId, 'complete');
        return this.#acknowledge(message.job_id, message.acquire);
      }
      case 'fail':
        this.#announcing(
          await this.#spans.step(message.job_id, 'fail', () => failJob(this.protocol, this.daemon, message.job_id, message)),
        );
        this.#spans.end(message.job_id, message.canceled === true ? 'canceled' : 'failed');
        return this.#acknowledge(message.job_id, message.acquire);
    }
  }

  /** A report is recorded: the daemon is told, and the next job looked for when the report asked for one. */
  async #acknowledge(jobId: string, acquire: boolean | undefined): Promise<void> {
    await this.#release(jobId);
    await this.#observeFinished(jobId);
    this.#send({ type: 'ack', job_id: jobId });
    // The claim is a statement of its own, after the end is recorded and announced: made part of
    // the end's statement, it delayed what watchers are told of the end (bench builds on
    // PostgreSQL, watch p95 46-55 ms against 34-39 ms) and saved no measurable time.
    if (acquire && !this.#acquiring) void this.#acquireLoop();
  }

  /** Tells the observer, if any, how the job ended: one read of the finished row, only when metrics are on. */
  async #observeFinished(jobId: string): Promise<void> {
    if (!this.watchers.observer) return;
    const job = await this.protocol.store.provisionerJobs.get(this.daemon.organizationId, jobId).catch(() => undefined);
    if (job) this.watchers.observer.jobFinished(job);
  }

  async #acquireLoop(): Promise<void> {
    this.#acquiring = true;
    try {
      while (this.#acquiring && !this.#closed) {
        // The daemon waits for a job until it is sent one or no_job: a look that fails (the database
        // is down) must not end the wait for good, so it is tried again after the poll.
        const lookedAt = Date.now();
        const acquired = await acquireJob(this.protocol, this.daemon, this.accessUrl).catch((error: unknown) => {
          this.log.warn({ err: error, daemon: this.daemon.name }, 'could not look for a provisioner job; trying again');
          return undefined;
        });
        if (acquired) {
          this.#acquiring = false;
          this.#announcing(acquired);
          const traceMetadata = this.#spans.acquired(acquired.value, lookedAt);
          const job = Object.keys(traceMetadata).length > 0 ? { ...acquired.value, trace_metadata: traceMetadata } : acquired.value;
          await this.#hold(acquired.claimed);
          this.#send({ type: 'job', job });
          return;
        }
        // A cancel_acquire that came while looking must not wait a whole poll to be answered.
        if (!this.#acquiring || this.#closed) break;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ACQUIRE_POLL_MS);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = undefined;
      }
      if (!this.#closed) this.#send({ type: 'no_job' });
    } catch (error) {
      this.#acquiring = false;
      this.#report(error);
    }
  }

  /**
   * Keeps what a job's claim read, and follows the job's events so a cancel reaches the daemon at
   * once. The job is claimed already: a subscription that fails (the notification connection is
   * down, as just after a database outage) must not keep it from the daemon, which would then wait
   * for it while nobody runs it. Without one, a cancel still reaches the daemon in the answer to
   * its next heartbeat.
   */
  async #hold(claimed: ClaimedJob): Promise<void> {
    const jobId = claimed.job.id;
    const unfollow = await this.protocol.pubsub
      .subscribe(jobEventsChannel(jobId), (event) => {
        if (event === 'canceled') this.#send({ type: 'cancel', job_id: jobId });
      })
      .catch((error: unknown) => {
        this.log.warn(
          { err: error, daemon: this.daemon.name, job_id: jobId },
          'could not follow a job for cancels; its heartbeats will carry them',
        );
        return async () => undefined;
      });
    this.#held.set(jobId, { claimed, unfollow });
  }

  async #release(jobId: string): Promise<void> {
    await this.#held.get(jobId)?.unfollow();
    this.#held.delete(jobId);
  }

  /**
   * The daemon is answered once a step is stored, not after watchers are told of it: a NOTIFY's
   * round trip would hold up its next job. The announcement's failure is the server's to log; the
   * daemon's report was recorded, and sending it again would only be refused.
   */
  #announcing(step: Announcing<unknown>): void {
    step.announced.catch((error: unknown) => this.log.error({ err: error, daemon: this.daemon.name }, 'could not announce a job event'));
  }

  #send(message: ServerMessage): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }

  #report(error: unknown, jobId?: string): void {
    const about = jobId === undefined ? {} : { job_id: jobId };
    if (error instanceof HttpProblem) {
      this.#send({ type: 'error', message: error.message, ...about });
      return;
    }
    this.log.error({ err: error, daemon: this.daemon.name }, 'provisioner daemon message failed');
    this.#send({ type: 'error', message: 'internal error handling the message', ...about });
  }

  async #close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.watchers.connected.delete(this.daemon.id);
    this.#acquiring = false;
    this.#wake?.();
    clearInterval(this.#heartbeat);
    await this.#stopPosted?.();
    for (const { unfollow } of this.#held.values()) await unfollow();
    this.#held.clear();
    this.#spans.endAll('disconnected');
  }
}
