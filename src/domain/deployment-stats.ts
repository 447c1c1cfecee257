import type { AuthorizedStore } from '../store/authorized-store.js';
import { parseJson } from '../store/json-column.js';

/** The window agent reports count in. */
const WINDOW_MS = 15 * 60_000;
/** How often the numbers are meant to be refreshed, as the reference's agent stats interval. */
const REFRESH_MS = 30_000;
/** A running job not updated for this long counts as hung, not building. */
const BUILDING_FRESH_MS = 30_000;

/** The deployment-wide numbers of `GET /deployment/stats`. */
export interface DeploymentStats {
  readonly aggregated_from: string;
  readonly collected_at: string;
  readonly next_update_at: string;
  readonly session_count: { readonly vscode: number; readonly ssh: number; readonly jetbrains: number; readonly reconnecting_pty: number };
  readonly workspaces: {
    readonly pending: number;
    readonly building: number;
    readonly running: number;
    readonly stopped: number;
    readonly failed: number;
    readonly connection_latency_ms: { readonly p50: number; readonly p95: number };
    readonly rx_bytes: number;
    readonly tx_bytes: number;
  };
}

interface AgentStats {
  readonly rx_bytes?: number;
  readonly tx_bytes?: number;
  readonly session_count_ssh?: number;
  readonly session_count_reconnecting_pty?: number;
  readonly session_count_vscode?: number;
  readonly session_count_jetbrains?: number;
  readonly connection_median_latency_ms?: number;
  /** When the traffic window of the stored report began, and the bytes of every report since (see `withTrafficWindow`). */
  readonly window_started_at?: string;
  readonly window_rx_bytes?: number;
  readonly window_tx_bytes?: number;
}

/**
 * The report to store for an agent: its latest stats, plus the traffic of every report since the
 * window began (`previous` is the stored report, JSON). Each report carries only the bytes since
 * the one before, so the latest alone would lose traffic an earlier report in the window carried;
 * the window starts again once it is as old as the stats window.
 */
export function withTrafficWindow(previous: string | null | undefined, stats: AgentStats, now: Date): AgentStats {
  const before = parseJson<AgentStats>(previous ?? null, {});
  const started = before.window_started_at ? Date.parse(before.window_started_at) : Number.NaN;
  const fresh = !(now.getTime() - started < WINDOW_MS);
  return {
    ...stats,
    window_started_at: fresh ? now.toISOString() : (before.window_started_at ?? now.toISOString()),
    window_rx_bytes: (fresh ? 0 : (before.window_rx_bytes ?? 0)) + (stats.rx_bytes ?? 0),
    window_tx_bytes: (fresh ? 0 : (before.window_tx_bytes ?? 0)) + (stats.tx_bytes ?? 0),
  };
}

/** A continuous percentile of sorted values, or -1 when there are none. */
function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return -1;
  const position = fraction * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const low = sorted[below] ?? 0;
  return low + ((sorted[above] ?? low) - low) * (position - below);
}

/**
 * Counts live workspaces by what their latest build is doing, and adds up what their agents
 * reported in the last 15 minutes: traffic, sessions (each agent's latest report) and latency.
 */
export async function computeDeploymentStats(store: AuthorizedStore, now: Date): Promise<DeploymentStats> {
  const from = new Date(now.getTime() - WINDOW_MS);
  const { latestBuilds, agentReports } = await store.deployment.statsInputs(from);
  const counts = { pending: 0, building: 0, running: 0, stopped: 0, failed: 0 };
  for (const { transition, job } of latestBuilds) {
    if (job.error) counts.failed++;
    else if (!job.started_at && !job.completed_at) counts.pending++;
    else if (!job.completed_at && !job.canceled_at && now.getTime() - Date.parse(job.updated_at) <= BUILDING_FRESH_MS) counts.building++;
    else if (job.completed_at && !job.canceled_at && transition === 'start') counts.running++;
    else if (job.completed_at && !job.canceled_at && transition === 'stop') counts.stopped++;
  }
  const reports = agentReports.map((report) => parseJson<AgentStats>(report, {}));
  const sum = (pick: (stats: AgentStats) => number | undefined) => reports.reduce((total, stats) => total + (pick(stats) ?? 0), 0);
  const latencies = reports
    .map((stats) => stats.connection_median_latency_ms ?? 0)
    .filter((ms) => ms > 0)
    .sort((a, b) => a - b);
  return {
    aggregated_from: from.toISOString(),
    collected_at: now.toISOString(),
    next_update_at: new Date(now.getTime() + REFRESH_MS).toISOString(),
    session_count: {
      vscode: sum((s) => s.session_count_vscode),
      ssh: sum((s) => s.session_count_ssh),
      jetbrains: sum((s) => s.session_count_jetbrains),
      reconnecting_pty: sum((s) => s.session_count_reconnecting_pty),
    },
    workspaces: {
      ...counts,
      connection_latency_ms: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
      rx_bytes: sum((s) => s.window_rx_bytes ?? s.rx_bytes),
      tx_bytes: sum((s) => s.window_tx_bytes ?? s.tx_bytes),
    },
  };
}
