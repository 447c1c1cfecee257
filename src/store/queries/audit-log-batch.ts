import type { Kysely } from 'kysely';
import type { AuditLogRow } from './audit-logs.js';
import type { Database } from '../schema.js';

/** Rows per statement: well under SQLite's limit of bound parameters (15 columns each). */
const BATCH = 500;

/** Inserts audit entries in as few statements as the database's limits allow; nothing for none. */
export async function insertAuditLogs(db: Kysely<Database>, rows: readonly AuditLogRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += BATCH) {
    await db
      .insertInto('audit_logs')
      .values(rows.slice(start, start + BATCH))
      .execute();
  }
}
