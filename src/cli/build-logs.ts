import type { ProvisionerJob, ProvisionerJobLog } from '../sdk/wire/index.js';

/** How build logs are printed. */
export interface BuildLogOptions {
  /** Show `debug` and `trace` lines too. */
  readonly verbose: boolean;
  /** Colour warnings, errors and stage marks (only on a terminal). */
  readonly color: boolean;
  /** Milliseconds now, for the time spent queued (the other stages are timed by their logs). */
  readonly now?: () => number;
}

interface OpenStage {
  readonly name: string;
  /** Start of the stage, on the clock of the timestamps it is measured with. */
  readonly startedAt: number;
  /** The last moment seen in the stage, on the same clock. */
  lastAt: number;
  /** Queued is timed on this machine's clock: the job has no log lines while it waits. */
  readonly local: boolean;
  /** An error line was logged in the stage: it closes as failed. */
  failed: boolean;
}

const ANSI = { red: '\u001b[31m', yellow: '\u001b[33m', green: '\u001b[32m', dim: '\u001b[2m', reset: '\u001b[0m' } as const;
const QUEUED = 'Queued';

/**
 * Prints a provisioner job's logs as they arrive, grouped by stage:
 * `==> ⧗ Stage` when a stage opens, its lines with local timestamps, and `=== ✔ Stage [12ms]`
 * (or `✘` for the stage a failed job ended in) when it closes. A stage's duration runs from its
 * first log line to the next stage's, on the provisioner's clock.
 */
export class BuildLogPrinter {
  readonly #out: NodeJS.WritableStream;
  readonly #options: BuildLogOptions;
  readonly #now: () => number;
  #stage: OpenStage | undefined;
  #queuePosition = 0;
  #finished = false;
  #sawFailedStage = false;

  constructor(out: NodeJS.WritableStream, options: BuildLogOptions) {
    this.#out = out;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Shows that the job waits for a provisioner, and where it is in the queue when that is known. */
  queued(job: Pick<ProvisionerJob, 'queue_position' | 'queue_size'>): void {
    if (this.#finished) return;
    if (this.#stage === undefined) {
      this.#stage = { name: QUEUED, startedAt: this.#now(), lastAt: this.#now(), local: true, failed: false };
      this.#line(this.#mark('==>', '⧗', QUEUED));
    }
    if (this.#stage.name !== QUEUED || job.queue_position <= 0 || job.queue_position === this.#queuePosition) return;
    this.#queuePosition = job.queue_position;
    this.#line(`    Position ${job.queue_position} of ${job.queue_size} in the queue`);
  }

  /** Prints one log line, opening a new stage first when the line names one. */
  log(log: ProvisionerJobLog): void {
    if (this.#finished) return;
    const at = Date.parse(log.created_at);
    const stage = log.stage || this.#stage?.name || 'Running';
    if (this.#stage === undefined || this.#stage.name !== stage) {
      this.#close('✔', at);
      this.#stage = { name: stage, startedAt: at, lastAt: at, local: false, failed: false };
      this.#line(this.#mark('==>', '⧗', stage));
    } else if (!this.#stage.local) {
      this.#stage.lastAt = Math.max(this.#stage.lastAt, at);
    }
    if (log.log_level === 'error' && this.#stage) this.#stage.failed = true;
    // The runner opens each stage with an empty line; it marks the stage and says nothing else.
    if (log.output === '') return;
    if ((log.log_level === 'debug' || log.log_level === 'trace') && !this.#options.verbose) return;
    const colour = log.log_level === 'error' ? ANSI.red : log.log_level === 'warn' ? ANSI.yellow : undefined;
    this.#line(`${this.#paint(ANSI.dim, clockTime(at))} ${colour ? this.#paint(colour, log.output) : log.output}`);
  }

  /**
   * Closes the last stage. When the job failed or was canceled and no stage has logged an error,
   * the last stage is the one marked failed, so a failure is never shown as all ticks.
   */
  finish(job: Pick<ProvisionerJob, 'status'>): void {
    if (this.#finished) return;
    this.#close(job.status === 'succeeded' || this.#sawFailedStage ? '✔' : '✘');
    this.#finished = true;
  }

  #close(passed: '✔' | '✘', nextAt?: number): void {
    const stage = this.#stage;
    if (stage === undefined) return;
    const mark = stage.failed ? '✘' : passed;
    if (mark === '✘') this.#sawFailedStage = true;
    const end = stage.local ? this.#now() : (nextAt ?? stage.lastAt);
    const ms = Math.max(0, Math.round(end - stage.startedAt));
    this.#line(`${this.#mark('===', mark, stage.name)} [${ms}ms]`);
    this.#stage = undefined;
  }

  #mark(prefix: string, mark: string, stage: string): string {
    const colour = mark === '✔' ? ANSI.green : mark === '✘' ? ANSI.red : undefined;
    return `${prefix} ${colour ? this.#paint(colour, mark) : mark} ${stage}`;
  }

  #paint(colour: string, text: string): string {
    return this.#options.color ? `${colour}${text}${ANSI.reset}` : text;
  }

  #line(text: string): void {
    this.#out.write(`${text}\n`);
  }
}

/** Local wall-clock time with milliseconds, e.g. `14:03:07.215`. */
function clockTime(ms: number): string {
  if (Number.isNaN(ms)) return '--:--:--.---';
  const date = new Date(ms);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}
