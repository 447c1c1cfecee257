import type { Kysely } from 'kysely';
import { siteObject, type RbacObject } from '../../rbac/index.js';
import * as retention from '../queries/retention.js';
import type { Database } from '../schema.js';
import { StoreFamily } from './store-family.js';

/** What a retention purge deletes, as the `retention` settings name it. */
export const PURGE_KINDS = [
  'audit_logs',
  'connection_logs',
  'api_keys',
  'workspace_agent_logs',
  'provisioner_job_logs',
  'workspace_usage_stats',
] as const;
export type PurgeKind = (typeof PURGE_KINDS)[number];

const MINUTE_MS = 60_000;

/** One batch of each kind, and the right it needs: logs and usage are the deployment's, keys their owners'. */
const PURGES: Readonly<
  Record<PurgeKind, { readonly object: RbacObject; run(db: Kysely<Database>, before: Date, limit: number): Promise<number> }>
> = {
  audit_logs: {
    object: siteObject('system'),
    run: (db, before, limit) => retention.deleteAuditLogsBefore(db, before.toISOString(), limit),
  },
  connection_logs: {
    object: siteObject('system'),
    run: (db, before, limit) => retention.deleteConnectionLogsBefore(db, before.toISOString(), limit),
  },
  // A site-wide key object: only a right over every user's keys may purge them.
  api_keys: {
    object: siteObject('api_key'),
    run: (db, before, limit) => retention.deleteApiKeysExpiredBefore(db, before.toISOString(), limit),
  },
  workspace_agent_logs: {
    object: siteObject('system'),
    run: (db, before, limit) => retention.deleteStaleAgentLogs(db, before.toISOString(), limit),
  },
  provisioner_job_logs: {
    object: siteObject('system'),
    run: (db, before, limit) => retention.deleteStaleJobLogs(db, before.toISOString(), limit),
  },
  workspace_usage_stats: {
    object: siteObject('system'),
    // A minute is kept while any part of it is within the retention.
    run: (db, before, limit) => retention.deleteUsageMinutesBefore(db, Math.floor(before.getTime() / MINUTE_MS), limit),
  },
};

/** Deletes rows past their retention; see src/domain/retention/. */
export class RetentionStore extends StoreFamily {
  /**
   * Deletes one batch, at most `limit` rows, of `kind` older than `before` and returns how many it
   * deleted; needs `delete` on the system (logs, usage) or on every user's API keys.
   */
  async purgeBatch(kind: PurgeKind, before: Date, limit: number): Promise<number> {
    const purge = PURGES[kind];
    this.require('delete', purge.object);
    return purge.run(this.db, before, limit);
  }
}
