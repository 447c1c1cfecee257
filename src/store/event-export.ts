import type { AuditLogTable, ConnectionLogTable } from './schema.js';

/**
 * Where audit entries and connection log rows are also written once committed, for log
 * collectors (`--audit-logs-export`, `--connection-logs-export`). The daemon installs one on its
 * store; writing must not throw or wait, since the change it reports is already made.
 */
export interface EventExport {
  /** An audit entry, as stored. */
  audit(row: AuditLogTable): void;
  /** A connection log row, as stored when the connection opened and again when it closed. */
  connection(row: ConnectionLogTable): void;
}
