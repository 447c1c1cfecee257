import type { ProvisionerJobRow } from '../store/rows.js';

/**
 * What the API tells whoever measures it (the Prometheus metrics, when enabled). The API only
 * reports; counting, bucketing and exposition happen elsewhere.
 */
export interface ApiObserver {
  /** A request was answered: its route pattern (`/api/v2/users/:user`), method, status and time taken. */
  requestDone(route: string, method: string, status: number, seconds: number): void;
  /** A provisioner job finished (completed, failed or canceled): its row as stored afterwards. */
  jobFinished(job: ProvisionerJobRow): void;
  /** The workspace watch streams changed: how many are open, and how many shared re-reads (groups) serve them. */
  workspaceWatches(groups: number, watchers: number): void;
}
