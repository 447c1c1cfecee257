import type { Kysely } from 'kysely';
import type { AuditLogTable, Database } from '../schema.js';

/** An audit log row. */
export type AuditLogRow = AuditLogTable;

/** Writes one audit entry. */
export async function insertAuditLog(db: Kysely<Database>, row: AuditLogRow): Promise<void> {
  await db.insertInto('audit_logs').values(row).execute();
}
