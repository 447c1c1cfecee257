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
/** The stage the provisioner runner ends every job with, whatever happened before (as the reference's does). */
const CLEANUP = 'Cleaning Up';

/** A stage that ended when the next one opened, its mark not yet printed (see BuildLogPrinter). */
interface HeldStage {
  readonly stage: OpenStage;
  readonly ms: number;
}

/**
 * Prints a provisioner job's logs as they arrive, grouped by stage:
 * `==> ⧗ Stage` when a stage opens, its lines with local timestamps, and `=== ✔ Stage [12ms]`
 * (or `✘` for the stage a failed job ended in, `✘ … (canceled)` for the one a cancel interrupted)
 * when it closes. A stage's duration runs from its first log line to the next stage's, on the
 * provisioner's clock.
 *
 * A canceled job logs nothing where it stopped: the runner just opens its last stage, `Cleaning
 * Up`. So the mark of the stage before that one waits until cleaning up logs a line (then the stage
 * surely completed) or the job ends (then the job's status decides); every other stage prints live.
 */
export class BuildLogPrinter {
  readonly #out: NodeJS.WritableStream;
  readonly #options: BuildLogOptions;
  readonly #now: () => number;
  #stage: OpenStage | undefined;
  #held: HeldStage | undefined;
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
      // Another stage after cleaning up: the stage held before it completed.
      this.#release('✔');
      const previous = this.#stage;
      if (previous !== undefined && stage === CLEANUP) this.#held = { stage: previous, ms: this.#duration(previous, at) };
      else if (previous !== undefined) this.#closeLine(previous, this.#duration(previous, at), '✔', false);
      this.#stage = { name: stage, startedAt: at, lastAt: at, local: false, failed: false };
      if (this.#held === undefined) this.#line(this.#mark('==>', '⧗', stage));
    } else if (!this.#stage.local) {
      this.#stage.lastAt = Math.max(this.#stage.lastAt, at);
    }
    if (log.log_level === 'error' && this.#stage) this.#stage.failed = true;
    // The runner opens each stage with an empty line; it marks the stage and says nothing else.
    if (log.output === '') return;
    this.#release('✔');
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
    const canceled = job.status === 'canceled';
    this.#release(job.status === 'succeeded' || this.#sawFailedStage ? '✔' : '✘', canceled);
    const stage = this.#stage;
    if (stage !== undefined)
      this.#closeLine(stage, this.#duration(stage), job.status === 'succeeded' || this.#sawFailedStage ? '✔' : '✘', canceled);
    this.#stage = undefined;
    this.#finished = true;
  }

  /** Prints the held stage's mark, then the opening of the stage after it. */
  #release(passed: '✔' | '✘', canceled = false): void {
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    this.#closeLine(held.stage, held.ms, passed, canceled);
    if (this.#stage) this.#line(this.#mark('==>', '⧗', this.#stage.name));
  }

  #closeLine(stage: OpenStage, ms: number, passed: '✔' | '✘', canceled: boolean): void {
    const mark = stage.failed ? '✘' : passed;
    if (mark === '✘') this.#sawFailedStage = true;
    const why = mark === '✘' && canceled && !stage.failed ? ' (canceled)' : '';
    this.#line(`${this.#mark('===', mark, stage.name)} [${ms}ms]${why}`);
  }

  /** Milliseconds from a stage's start to `nextAt` (the next stage's first line), else to its last line. */
  #duration(stage: OpenStage, nextAt?: number): number {
    const end = stage.local ? this.#now() : (nextAt ?? stage.lastAt);
    return Math.max(0, Math.round(end - stage.startedAt));
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
