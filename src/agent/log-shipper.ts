import type { AgentLogInput, PatchAgentLogsRequest, PostLogSourceRequest } from '../sdk/wire/agent-protocol.js';
import { sendHttpRequest } from '../sdk/http-transport.js';
import type { AgentLogger } from './agent-logger.js';
import { sleep } from '../lib/reconnect.js';
import { StateChanges } from '../lib/state-changes.js';

/** Where and how the shipper sends. */
export interface LogShipperOptions {
  /** The deployment's base URL. */
  readonly url: string;
  /** The agent token, sent in the `Service-Session-Token` header. */
  readonly token: string;
  readonly logger: AgentLogger;
  /** The longest a line waits before it is sent (250 ms). */
  readonly flushMs?: number;
  /** A batch is sent at once when this many lines are queued (100). */
  readonly batchLines?: number;
  /** Waits between retries of a failed request (1000 ms, doubling to 5000 ms). */
  readonly retryMs?: number;
}

interface QueuedLog {
  readonly sourceId: string;
  readonly log: AgentLogInput;
}

/** Lines kept while the daemon cannot be reached; the oldest are dropped past this. */
const MAX_QUEUED = 10_000;

/**
 * Ships log lines with `PATCH /api/v2/workspaceagents/me/logs`, in batches, one request at a
 * time so lines arrive in the order they were written. A line leaves the queue only once the
 * daemon accepted it: failed requests are retried with backoff. A source's
 * `POST /api/v2/workspaceagents/me/log-source` goes out before its first lines. A 413 means the
 * agent's log limit is reached: everything queued and later is dropped, with one warning.
 */
export class LogShipper {
  readonly #options: LogShipperOptions;
  readonly #changes = new StateChanges();
  readonly #sources = new Map<string, PostLogSourceRequest>();
  readonly #registered = new Set<string>();
  #queue: QueuedLog[] = [];
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | undefined;
  #limitReached = false;
  #closed = false;
  readonly #stopRetrying = new AbortController();

  constructor(options: LogShipperOptions) {
    this.#options = options;
  }

  /** True once the daemon answered 413: nothing more will be sent. */
  get limitReached(): boolean {
    return this.#limitReached;
  }

  /** Lines queued or in flight. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Declares a log source; it is created on the daemon before its first line is sent. */
  addSource(source: PostLogSourceRequest): void {
    if (!this.#sources.has(source.id)) this.#sources.set(source.id, source);
  }

  /** Queues one line under `sourceId`. */
  write(sourceId: string, level: AgentLogInput['level'], output: string, createdAt: Date = new Date()): void {
    if (this.#limitReached || this.#closed) return;
    this.#queue.push({ sourceId, log: { created_at: createdAt.toISOString(), level, output: sanitize(output) } });
    if (this.#queue.length > MAX_QUEUED) this.#queue.shift();
    if (this.#queue.length >= (this.#options.batchLines ?? 100)) this.#kick();
    else this.#timer ??= setTimeout(() => this.#kick(), this.#options.flushMs ?? 250);
  }

  /** Sends what is queued and resolves when the queue is empty, or after `timeoutMs`. */
  flush(timeoutMs: number): Promise<void> {
    this.#kick();
    return this.#changes.until(() => this.#queue.length === 0, timeoutMs);
  }

  /** Stops retrying and accepting lines; what is still queued is dropped. */
  close(): void {
    this.#closed = true;
    this.#stopRetrying.abort();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #kick(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#sending ??= this.#drain().finally(() => {
      this.#sending = undefined;
      this.#changes.notify();
    });
  }

  /** Sends batches until the queue is empty; only one drain runs at a time. */
  async #drain(): Promise<void> {
    let failures = 0;
    while (this.#queue.length > 0 && !this.#limitReached) {
      const batch = this.#nextBatch();
      const outcome = await this.#sendBatch(batch.sourceId, batch.logs);
      if (outcome === 'ok') {
        failures = 0;
        this.#queue.splice(0, batch.logs.length);
        this.#changes.notify();
        continue;
      }
      if (outcome === 'limit') {
        this.#limitReached = true;
        this.#queue = [];
        this.#options.logger.warn({}, 'the workspace agent log limit is reached; no more logs will be sent');
        return;
      }
      if (this.#closed) return;
      failures += 1;
      const retryMs = this.#options.retryMs ?? 1000;
      await sleep(Math.min(retryMs * 2 ** (failures - 1), retryMs * 5), this.#stopRetrying.signal);
      if (this.#closed) return;
    }
  }

  /** The longest run of lines at the head of the queue that share a source, up to a batch. */
  #nextBatch(): { readonly sourceId: string; readonly logs: AgentLogInput[] } {
    const max = this.#options.batchLines ?? 100;
    const sourceId = this.#queue[0]?.sourceId ?? '';
    const logs: AgentLogInput[] = [];
    for (const entry of this.#queue) {
      if (entry.sourceId !== sourceId || logs.length >= max) break;
      logs.push(entry.log);
    }
    return { sourceId, logs };
  }

  async #sendBatch(sourceId: string, logs: AgentLogInput[]): Promise<'ok' | 'limit' | 'retry'> {
    try {
      if (!(await this.#ensureSource(sourceId))) return 'retry';
      const body: PatchAgentLogsRequest = { log_source_id: sourceId, logs };
      const response = await this.#request('PATCH', '/api/v2/workspaceagents/me/logs', body);
      if (response.ok) return 'ok';
      if (response.status === 413) return 'limit';
      // A refused batch (400) will be refused again; dropping it keeps the rest flowing.
      if (response.status === 400) {
        this.#options.logger.warn({ status: response.status, source: sourceId }, 'the daemon refused a batch of logs; dropping it');
        return 'ok';
      }
      this.#options.logger.warn({ status: response.status }, 'could not send logs; retrying');
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'could not send logs; retrying');
    }
    return 'retry';
  }

  /** Creates the source on the daemon once; the daemon accepts a repeat, so a retry is harmless. */
  async #ensureSource(sourceId: string): Promise<boolean> {
    const source = this.#sources.get(sourceId);
    if (source === undefined || this.#registered.has(sourceId)) return true;
    const response = await this.#request('POST', '/api/v2/workspaceagents/me/log-source', source);
    if (!response.ok) {
      this.#options.logger.warn({ status: response.status, source: sourceId }, 'could not create a log source; retrying');
      return false;
    }
    this.#registered.add(sourceId);
    return true;
  }

  async #request(method: string, path: string, body: unknown): Promise<{ readonly ok: boolean; readonly status: number }> {
    // Through the SDK's transport: it trusts the CA of --client-tls-ca-file, which fetch would not.
    const answer = await sendHttpRequest(new URL(`${this.#options.url.replace(/\/$/, '')}${path}`), {
      method,
      headers: { 'Service-Session-Token': this.#options.token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      timeoutMs: 30_000,
    });
    return { ok: answer.status >= 200 && answer.status < 300, status: answer.status };
  }
}

/** NUL bytes cannot be stored; the daemon would replace them anyway. */
function sanitize(output: string): string {
  return output.includes('\u0000') ? output.replaceAll('\u0000', '\u274c') : output;
}
