import { CliError } from '../cli-error.js';
import type { CommandContext, OptionSpec } from '../command.js';
import { readDurationFlag } from '../duration-flag.js';
import type { OperationStats } from './operation-stats.js';
import { ProgressLine } from './progress-line.js';
import {
  brokenBounds,
  daemonResources,
  printReport,
  readDaemonMetrics,
  type MetricsReading,
  type ScaletestBounds,
} from './scaletest-report.js';
import { isRunId } from './scaletest-run.js';

/** The flags every scale test subcommand shares: its bounds, the daemon's metrics and the pace of its requests. */
export const REPORT_OPTIONS: readonly OptionSpec[] = [
  { flags: '--concurrency <n>', description: 'How many users, workspaces or connections are set up at once', default: '10' },
  { flags: '--max-p95 <ms>', description: "Exit with 1 when an operation's p95 latency passes this many milliseconds" },
  { flags: '--max-errors <n>', description: 'Exit with 1 when more than this many operations fail' },
  {
    flags: '--metrics-url <url>',
    description: "The daemon's Prometheus metrics (--prometheus-enable), to report its memory and CPU, e.g. http://127.0.0.1:2112/metrics",
    env: 'COVE_SCALETEST_METRICS_URL',
  },
];

/** `--run`: one run's workspaces and users. */
export const RUN_OPTION: OptionSpec = { flags: '--run <id>', description: 'The run (8 hex digits) to use; default: every scale test run' };

/** A whole number of at least `min` from a flag; an error naming the flag otherwise. */
export function intFlag(options: Readonly<Record<string, unknown>>, key: string, flag: string, min: number): number {
  const text = String(options[key]);
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min)
    throw new CliError(`${flag} "${text}" is not a whole number of at least ${min}.`, {
      hint: `For example ${flag} ${Math.max(min, 10)}.`,
    });
  return value;
}

/** A positive duration from a flag, in milliseconds. */
export function durationFlag(options: Readonly<Record<string, unknown>>, key: string, flag: string): number {
  const text = String(options[key]);
  const ms = readDurationFlag(text, flag);
  if (ms === undefined || ms <= 0)
    throw new CliError(`${flag} "${text}" is not a duration.`, { hint: `For example ${flag} 10s or ${flag} 500ms.` });
  return ms;
}

/** `--run`'s id, checked; undefined when not given. */
export function runFlag(options: Readonly<Record<string, unknown>>): string | undefined {
  const text = options['run'];
  if (typeof text !== 'string') return undefined;
  if (!isRunId(text))
    throw new CliError(`--run "${text}" is not a run id.`, {
      hint: 'A run id is the 8 hex digits create-workspaces printed, e.g. --run 1f2e3d4c.',
    });
  return text;
}

/** `--max-p95` and `--max-errors`. */
export function boundsFlags(options: Readonly<Record<string, unknown>>): ScaletestBounds {
  const p95 = options['maxP95'];
  const errors = options['maxErrors'];
  let maxP95Ms: number | undefined;
  if (typeof p95 === 'string') {
    maxP95Ms = Number(p95);
    if (!Number.isFinite(maxP95Ms) || maxP95Ms <= 0)
      throw new CliError(`--max-p95 "${p95}" is not a number of milliseconds.`, { hint: 'For example --max-p95 300.' });
  }
  return { maxP95Ms, maxErrors: typeof errors === 'string' ? intFlag(options, 'maxErrors', '--max-errors', 0) : undefined };
}

/**
 * A run of a subcommand: a progress line while it works, the daemon's metrics read at its start
 * and end, and the report at the end. The caller's work records into `stats`.
 */
export class ScaletestRun {
  readonly #context: CommandContext;
  readonly #command: string;
  readonly #options: Readonly<Record<string, unknown>>;
  readonly #stats: OperationStats;
  readonly #started = performance.now();
  readonly #bounds: ScaletestBounds;
  #firstReading: MetricsReading | undefined;
  #progress: ProgressLine | undefined;

  constructor(context: CommandContext, command: string, options: Readonly<Record<string, unknown>>, stats: OperationStats) {
    this.#context = context;
    this.#command = command;
    this.#options = options;
    this.#stats = stats;
    this.#bounds = boundsFlags(options);
  }

  get metricsUrl(): string | undefined {
    const url = this.#options['metricsUrl'];
    return typeof url === 'string' && url !== '' ? url : undefined;
  }

  /** Reads the metrics once (a warning when they cannot be read) and starts the progress line. */
  async start(progress: () => string): Promise<void> {
    if (this.metricsUrl) {
      this.#firstReading = await readDaemonMetrics(this.metricsUrl);
      if (!this.#firstReading)
        this.#context.io.stderr.write(
          `Warning: could not read process_resident_memory_bytes from ${this.metricsUrl}; is the daemon run with --prometheus-enable?\n`,
        );
    }
    this.#progress = new ProgressLine(
      this.#context.io.stderr,
      () => `${this.#command}: ${progress()} (${this.#stats.count} ok, ${this.#stats.errors} errors, ${this.#seconds().toFixed(0)} s)`,
    );
  }

  /** Stops the progress line, prints the report, and returns the exit status. */
  async finish(runId: string, details: Readonly<Record<string, unknown>>): Promise<number> {
    this.#progress?.stop();
    const last = this.metricsUrl ? await readDaemonMetrics(this.metricsUrl) : undefined;
    const operations = this.#stats.summaries();
    const seconds = this.#seconds();
    return printReport(this.#context, {
      command: this.#command,
      run_id: runId,
      duration_seconds: Math.round(seconds * 1000) / 1000,
      operations,
      total: { count: this.#stats.count, errors: this.#stats.errors, per_second: Math.round((this.#stats.count / seconds) * 1000) / 1000 },
      daemon: this.metricsUrl ? daemonResources(this.metricsUrl, this.#firstReading, last) : null,
      bounds: { max_p95_ms: this.#bounds.maxP95Ms ?? null, max_errors: this.#bounds.maxErrors ?? null },
      broken: brokenBounds(operations, this.#bounds),
      details,
    });
  }

  #seconds(): number {
    return (performance.now() - this.#started) / 1000;
  }
}

/** Aborts at Ctrl+C (SIGINT or SIGTERM) or when the caller's interrupt (tests) does; `release` stops listening. */
export function interruptSignal(context: CommandContext): { readonly signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  context.io.interrupt?.addEventListener('abort', stop, { once: true });
  return {
    signal: controller.signal,
    release() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      context.io.interrupt?.removeEventListener('abort', stop);
    },
  };
}
