import type { CommandContext } from '../command.js';
import type { Column } from '../output.js';
import { printJson } from '../output.js';
import type { OperationSummary } from './operation-stats.js';

/** The daemon's memory and CPU during a run, read from its metrics. */
export interface DaemonResources {
  /** Where the figures came from: the metrics URL. */
  readonly source: string;
  readonly rss_bytes: number;
  /** CPU over the run, 100 = one core; null when only one reading was possible. */
  readonly cpu_percent: number | null;
}

/** What a `cove scaletest` subcommand prints with `-o json`. */
export interface ScaletestReport {
  readonly command: string;
  readonly run_id: string;
  readonly duration_seconds: number;
  readonly operations: readonly OperationSummary[];
  readonly total: { readonly count: number; readonly errors: number; readonly per_second: number };
  readonly daemon: DaemonResources | null;
  /** The bounds a run was held to, and which it broke (empty when none). */
  readonly bounds: { readonly max_p95_ms: number | null; readonly max_errors: number | null };
  readonly broken: readonly string[];
  /** Figures of the subcommand's own (workspaces created, bytes echoed, agents connected, …). */
  readonly details: Readonly<Record<string, unknown>>;
}

/** The bounds `--max-p95` and `--max-errors` set; undefined for none. */
export interface ScaletestBounds {
  readonly maxP95Ms?: number | undefined;
  readonly maxErrors?: number | undefined;
}

/** One line per broken bound, naming the operation and both figures. */
export function brokenBounds(operations: readonly OperationSummary[], bounds: ScaletestBounds): string[] {
  const broken: string[] = [];
  if (bounds.maxP95Ms !== undefined)
    for (const op of operations)
      if (op.count > 0 && op.p95_ms > bounds.maxP95Ms)
        broken.push(`--max-p95 ${bounds.maxP95Ms} ms: ${op.operation} p95 was ${op.p95_ms.toFixed(1)} ms`);
  const errors = operations.reduce((sum, op) => sum + op.errors, 0);
  if (bounds.maxErrors !== undefined && errors > bounds.maxErrors)
    broken.push(`--max-errors ${bounds.maxErrors}: there were ${errors} errors`);
  return broken;
}

/** A reading of the daemon's Prometheus metrics: resident memory and CPU seconds so far. */
export interface MetricsReading {
  readonly rssBytes: number;
  readonly cpuSeconds: number;
  readonly at: number;
}

/**
 * Reads `process_resident_memory_bytes` and `process_cpu_seconds_total` (with or without the
 * daemon's `cove_` prefix) from a Prometheus endpoint; undefined when it cannot be read.
 */
export async function readDaemonMetrics(metricsUrl: string): Promise<MetricsReading | undefined> {
  try {
    const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) return undefined;
    const text = await response.text();
    const value = (name: string): number | undefined => {
      const match = new RegExp(`^(?:cove_)?${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)`, 'm').exec(text);
      return match?.[1] === undefined ? undefined : Number(match[1]);
    };
    const rssBytes = value('process_resident_memory_bytes');
    const cpuSeconds = value('process_cpu_seconds_total');
    if (rssBytes === undefined || cpuSeconds === undefined) return undefined;
    return { rssBytes, cpuSeconds, at: performance.now() };
  } catch {
    return undefined;
  }
}

/** The daemon's figures over a run from a reading at its start and one at its end. */
export function daemonResources(
  source: string,
  first: MetricsReading | undefined,
  last: MetricsReading | undefined,
): DaemonResources | null {
  if (!last) return null;
  const seconds = first ? (last.at - first.at) / 1000 : 0;
  return {
    source,
    rss_bytes: last.rssBytes,
    cpu_percent: first && seconds > 0 ? Math.round(((last.cpuSeconds - first.cpuSeconds) / seconds) * 1000) / 10 : null,
  };
}

const OPERATION_COLUMNS: readonly Column<OperationSummary>[] = [
  { heading: 'operation', value: (op) => op.operation },
  { heading: 'count', value: (op) => String(op.count) },
  { heading: 'errors', value: (op) => String(op.errors) },
  { heading: 'p50', value: (op) => ms(op.p50_ms) },
  { heading: 'p95', value: (op) => ms(op.p95_ms) },
  { heading: 'p99', value: (op) => ms(op.p99_ms) },
  { heading: 'max', value: (op) => ms(op.max_ms) },
  { heading: 'per second', value: (op) => op.per_second.toFixed(1) },
];

/** The columns of the report's table, for `-c` and the help. */
export const SCALETEST_COLUMNS = OPERATION_COLUMNS.map((column) => ({ heading: column.heading }));

/**
 * Prints the report (a table and a few lines, or JSON) and returns the exit status: 1 when a bound
 * was broken, after saying which on stderr.
 */
export function printReport(context: CommandContext, report: ScaletestReport): number {
  if (context.json) printJson(context.io, report);
  else {
    context.printTable(report.operations, OPERATION_COLUMNS);
    const out = (line: string): void => void context.io.stdout.write(`${line}\n`);
    out('');
    out(
      `${report.total.count} operations, ${report.total.errors} errors in ${report.duration_seconds.toFixed(1)} s (${report.total.per_second.toFixed(1)}/s)`,
    );
    for (const [key, value] of Object.entries(report.details))
      out(`${key.replaceAll('_', ' ')}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
    if (report.daemon)
      out(
        `daemon: RSS ${(report.daemon.rss_bytes / 1024 / 1024).toFixed(0)} MiB${report.daemon.cpu_percent === null ? '' : `, CPU ${report.daemon.cpu_percent.toFixed(0)}% of a core`} (from ${report.daemon.source})`,
      );
    for (const op of report.operations) for (const message of op.first_errors) out(`error in ${op.operation}: ${message}`);
  }
  for (const line of report.broken) context.io.stderr.write(`Bound broken: ${line}\n`);
  return report.broken.length > 0 ? 1 : 0;
}

const ms = (value: number): string => (value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(2)} ms`);
