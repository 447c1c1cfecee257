import type { DeploymentStats as Stats } from '../../domain/deployment-stats.js';
import type { DeploymentStats } from '../../sdk/wire/index.js';

/**
 * Deployment stats as the API shows them. The reference's connection latency percentiles are a Go
 * struct without JSON tags, so its server sends them under the field names `P50` and `P95`.
 */
export function toWireDeploymentStats(stats: Stats): DeploymentStats {
  const { p50, p95 } = stats.workspaces.connection_latency_ms;
  return { ...stats, workspaces: { ...stats.workspaces, connection_latency_ms: { P50: p50, P95: p95 } } };
}
