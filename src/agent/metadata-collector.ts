import { spawn } from 'node:child_process';
import type { AgentMessage, PlannedAgentMetadata } from '../sdk/wire/index.js';
import { AGENT_METADATA_VALUE_LIMIT } from '../sdk/wire/index.js';

/** One item's run as the agent reports it. */
type MetadataReport = Extract<AgentMessage, { type: 'metadata' }>['results'][number];

/** Where the scripts run, and where their results go. */
export interface MetadataCollectorOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Receives a batch of results, at most one per key. */
  readonly send: (message: Extract<AgentMessage, { type: 'metadata' }>) => void;
  /** How long results gather before they go out together (100 ms). */
  readonly batchMs?: number;
}

/** After a timeout's kill, how long the output pipes may stay open. */
const PIPE_GRACE_MS = 1_000;
/** A timeout the template left at 0, with an interval of 0 too: as the reference, 5 s. */
const DEFAULT_TIMEOUT_SECONDS = 5;

/**
 * Runs an agent's metadata items: each item's script through `sh -c`, in its own process group,
 * every `interval` seconds (once when the interval is 0), counted from the start of the previous
 * run, never two runs of an item at once. A run past its `timeout` (0: the interval) is killed
 * with its children. stdout and stderr together make the value, cut at 10 KiB; a failure, a
 * timeout or a cut is told in the error. Results gather for a moment and go out in one message.
 */
export class MetadataCollector {
  readonly #options: MetadataCollectorOptions;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #children = new Set<number>();
  readonly #pending = new Map<string, { readonly report: MetadataReport; readonly collectedAt: number }>();
  #flushTimer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(items: readonly PlannedAgentMetadata[], options: MetadataCollectorOptions) {
    this.#options = options;
    for (const item of items) this.#loop(item);
  }

  /** Stops scheduling runs and kills those still running; results not yet sent are dropped. */
  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    clearTimeout(this.#flushTimer);
    for (const pid of this.#children) killGroup(pid);
    this.#children.clear();
  }

  #loop(item: PlannedAgentMetadata): void {
    const run = async (): Promise<void> => {
      if (this.#stopped) return;
      const startedAt = Date.now();
      const report = await this.#run(item);
      if (this.#stopped) return;
      this.#queue(report);
      // An interval of 0 asks for one collection, not a loop.
      if (item.interval <= 0) return;
      this.#after(Math.max(0, startedAt + item.interval * 1000 - Date.now()), run);
    };
    this.#after(0, run);
  }

  #after(ms: number, step: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void step();
    }, ms);
    timer.unref();
    this.#timers.add(timer);
  }

  #run(item: PlannedAgentMetadata): Promise<MetadataReport> {
    const timeoutSeconds = item.timeout || item.interval || DEFAULT_TIMEOUT_SECONDS;
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let total = 0;
      let timedOut = false;
      const child = spawn('sh', ['-c', item.script], {
        cwd: this.#options.cwd,
        env: this.#options.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const pid = child.pid;
      if (pid !== undefined) this.#children.add(pid);
      const collect = (chunk: Buffer): void => {
        total += chunk.length;
        // Beyond the limit output is read and dropped, so a chatty script neither blocks nor grows memory.
        if (kept >= AGENT_METADATA_VALUE_LIMIT) return;
        const part = chunk.subarray(0, AGENT_METADATA_VALUE_LIMIT - kept);
        chunks.push(part);
        kept += part.length;
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      const timer = setTimeout(() => {
        timedOut = true;
        if (pid !== undefined) killGroup(pid);
        // A process that left the group may still hold the pipes: stop waiting for them.
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finish(undefined);
        }, PIPE_GRACE_MS).unref();
      }, timeoutSeconds * 1000);
      let settled = false;
      const finish = (failure: string | undefined): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (pid !== undefined) this.#children.delete(pid);
        const problems = [
          failure,
          timedOut ? `timed out after ${timeoutSeconds}s` : undefined,
          total > AGENT_METADATA_VALUE_LIMIT ? `output truncated from ${total} to ${AGENT_METADATA_VALUE_LIMIT} bytes` : undefined,
        ].filter((problem): problem is string => problem !== undefined);
        resolve({
          key: item.key,
          value: Buffer.concat(chunks).toString('utf8'),
          error: problems.length === 0 ? '' : `run cmd: ${problems.join('; ')}`,
          collected_at: new Date().toISOString(),
          age: 0,
        });
      };
      child.once('error', (error) => finish(error.message));
      // `close` comes once the output is read to its end, or the process is gone and its pipes closed.
      child.once('close', (code, signal) => {
        if (timedOut) return finish(undefined);
        finish(code === 0 ? undefined : code !== null ? `exit status ${code}` : `signal: ${signal ?? 'unknown'}`);
      });
    });
  }

  #queue(report: MetadataReport): void {
    this.#pending.set(report.key, { report, collectedAt: Date.now() });
    this.#flushTimer ??= setTimeout(() => this.#flush(), this.#options.batchMs ?? 100);
    this.#flushTimer.unref();
  }

  #flush(): void {
    this.#flushTimer = undefined;
    if (this.#stopped || this.#pending.size === 0) return;
    const now = Date.now();
    const results = [...this.#pending.values()].map(({ report, collectedAt }) => ({
      ...report,
      age: Math.max(0, Math.floor((now - collectedAt) / 1000)),
    }));
    this.#pending.clear();
    this.#options.send({ type: 'metadata', results });
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}
