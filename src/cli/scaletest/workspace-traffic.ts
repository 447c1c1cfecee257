import { randomInt } from 'node:crypto';
import type { CoveClient } from '../../sdk/client.js';
import { CliError } from '../cli-error.js';
import type { Workspace } from '../../sdk/wire/index.js';
import { abortableSleep as sleep } from './abortable-sleep.js';
import { mapLimit } from './map-limit.js';
import type { OperationStats } from './operation-stats.js';
import { openTrafficConnection, type TrafficConnection, type TrafficMode } from './traffic-connection.js';

/** What `workspace-traffic` is asked to do. */
export interface TrafficOptions {
  readonly mode: TrafficMode;
  readonly bytesPerTick: number;
  readonly tickIntervalMs: number;
  readonly durationMs: number;
  /** How many connections are opened at once. */
  readonly concurrency: number;
  /** Stops the traffic early (Ctrl+C). */
  readonly signal?: AbortSignal;
}

/** Totals of a traffic run, beside the latencies `stats` holds. */
export interface TrafficTotals {
  connections: number;
  bytesSent: number;
  bytesReceived: number;
  echoes: number;
}

/** The operation whose latency is the time a written marker takes to come back. */
export const ECHO_OPERATION = 'echo';
/** How long, after the traffic stops, markers still on the way may take to come back before they count as lost. */
const DRAIN_MS = 5000;
/** A terminal in line mode holds at most 4,096 bytes a line: a line break at least this often. */
const LINE_BYTES = 1000;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * Opens one connection per workspace and, for the duration, writes `bytesPerTick` bytes every tick
 * on each, ending each write with a unique marker; the time until the marker comes back is the
 * echo latency. A connection that fails to open, ends early, or loses a marker counts as an error.
 */
export async function runWorkspaceTraffic(
  client: CoveClient,
  workspaces: readonly Workspace[],
  options: TrafficOptions,
  stats: OperationStats,
  totals: TrafficTotals,
): Promise<void> {
  const opening = `open ${options.mode.kind === 'pty' ? 'terminal' : options.mode.kind}`;
  let firstFailure = '';
  const opened = await mapLimit(workspaces, options.concurrency, async (workspace) => {
    try {
      const connection = await stats.time(opening, () => openTrafficConnection(client, workspace, options.mode));
      totals.connections++;
      return connection;
    } catch (error) {
      firstFailure ||= `${workspace.owner_name}/${workspace.name}: ${(error as Error).message}`;
      return undefined;
    }
  });
  const connections = opened.filter((c): c is TrafficConnection => c !== undefined);
  // Nothing to measure: a figure of no traffic at all would read as a success.
  if (connections.length === 0 && workspaces.length > 0) {
    throw new CliError(`None of the ${workspaces.length} connections opened (${firstFailure}).`, {
      hint:
        options.mode.kind === 'app'
          ? `Check that every workspace of the run has the app "${options.mode.app}" and that it is up.`
          : 'Check that the workspaces are running and their agents connected ("cove ls").',
    });
  }
  const runs = connections.map((connection, index) => drive(connection, index, options, stats, totals));
  await Promise.all(runs);
}

/** One connection's ticks, then the wait for its last markers. */
async function drive(
  connection: TrafficConnection,
  index: number,
  options: TrafficOptions,
  stats: OperationStats,
  totals: TrafficTotals,
): Promise<void> {
  const pending: { marker: string; sentAt: number }[] = [];
  let received = '';
  let ended: string | undefined;
  let seq = 0;
  connection.onData((text) => {
    totals.bytesReceived += Buffer.byteLength(text);
    received += text;
    while (pending.length > 0) {
      const first = pending[0] as { marker: string; sentAt: number };
      const at = received.indexOf(first.marker);
      if (at < 0) break;
      stats.record(ECHO_OPERATION, performance.now() - first.sentAt);
      totals.echoes++;
      pending.shift();
      received = received.slice(at + first.marker.length);
    }
    // Only the tail can hold a marker still to come.
    if (received.length > 64 * 1024) received = received.slice(-1024);
  });
  connection.onEnd((reason) => {
    ended = reason;
    stats.fail(ECHO_OPERATION, reason);
  });
  const tick = (): void => {
    if (ended) return;
    const marker = `<${index}.${++seq}>`;
    const text = payload(Math.max(0, options.bytesPerTick - marker.length - 1)) + marker + '\r';
    pending.push({ marker, sentAt: performance.now() });
    totals.bytesSent += text.length;
    connection.write(text);
  };
  const stopAt = performance.now() + options.durationMs;
  // Connections start at random points of the first tick, so that their writes spread out.
  await sleep(randomInt(Math.max(1, options.tickIntervalMs)), options.signal);
  while (performance.now() < stopAt && !ended && !options.signal?.aborted) {
    const due = performance.now() + options.tickIntervalMs;
    tick();
    await sleep(Math.max(0, due - performance.now()), options.signal);
  }
  const drainUntil = performance.now() + DRAIN_MS;
  while (pending.length > 0 && !ended && performance.now() < drainUntil) await sleep(20);
  if (!ended) for (const lost of pending) stats.fail(ECHO_OPERATION, `marker ${lost.marker} did not come back within ${DRAIN_MS / 1000} s`);
  connection.close();
}

/** Letters, with a line break every {@link LINE_BYTES}. */
function payload(bytes: number): string {
  let text = '';
  for (let i = 0; i < bytes; i++) text += (i + 1) % LINE_BYTES === 0 ? '\r' : LETTERS[i % LETTERS.length];
  return text;
}
