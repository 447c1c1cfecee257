import { PURGE_KINDS, type AuthorizedStore, type PurgeKind } from '../../store/authorized-store.js';
import type { RetentionValues } from '../options/retention.js';

/** Rows one statement deletes at most: small enough that no purge holds its locks for long. */
export const PURGE_BATCH_ROWS = 1000;

/** What one purge of a kind did: rows deleted, and the statements that deleted them. */
export interface PurgedKind {
  readonly rows: number;
  readonly batches: number;
}

/** What a purge run deleted, by kind; a kind it deleted nothing of is absent. */
export type PurgeReport = Partial<Record<PurgeKind, PurgedKind>>;

/** The retention settings that are durations. */
type RetentionDurations = Omit<RetentionValues, 'auditLogsExport' | 'connectionLogsExport'>;

/** Each kind's retention setting, in milliseconds. */
const RETENTION_OF: Readonly<Record<PurgeKind, (values: RetentionDurations) => number>> = {
  audit_logs: (values) => values.auditLogsRetentionMs,
  connection_logs: (values) => values.connectionLogsRetentionMs,
  api_keys: (values) => values.apiKeysRetentionMs,
  workspace_agent_logs: (values) => values.workspaceAgentLogsRetentionMs,
  provisioner_job_logs: (values) => values.provisionerJobLogsRetentionMs,
  workspace_usage_stats: (values) => values.workspaceUsageStatsRetentionMs,
};

/**
 * Deletes every row older than its kind's retention at `now` (a retention of 0 keeps that kind
 * forever), in batches of `batchRows`, giving the event loop and other writers a turn between
 * batches. `store` is the purger's: no user asks for it. Two replicas purging at once delete
 * disjoint or already deleted rows, which is harmless.
 */
export async function purgeExpired(
  store: AuthorizedStore,
  now: Date,
  values: RetentionDurations,
  batchRows: number = PURGE_BATCH_ROWS,
): Promise<PurgeReport> {
  const report: PurgeReport = {};
  for (const kind of PURGE_KINDS) {
    const retentionMs = RETENTION_OF[kind](values);
    if (!(retentionMs > 0)) continue;
    const before = new Date(now.getTime() - retentionMs);
    let rows = 0;
    let batches = 0;
    for (;;) {
      const deleted = await store.retention.purgeBatch(kind, before, batchRows);
      if (deleted > 0) {
        rows += deleted;
        batches += 1;
      }
      if (deleted < batchRows) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (rows > 0) report[kind] = { rows, batches };
  }
  return report;
}
