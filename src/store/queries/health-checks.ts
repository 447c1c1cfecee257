import { sql, type Kysely } from 'kysely';
import { inTransaction } from './in-transaction.js';
import type { Database } from '../schema.js';

/** The dismissed health report sections, by name, in name order. */
export async function listDismissedSections(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('health_check_dismissals').select('section').orderBy('section').execute();
  return rows.map((row) => row.section);
}

/** Makes `sections` the dismissed set: one transaction, so a reader sees the old set or the new one. */
export async function replaceDismissedSections(db: Kysely<Database>, sections: readonly string[], now: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.deleteFrom('health_check_dismissals').execute();
    if (sections.length > 0) {
      await trx
        .insertInto('health_check_dismissals')
        .values(sections.map((section) => ({ section, dismissed_at: now })))
        .execute();
    }
  });
}

/** One round trip to the database that reads nothing: what the health check times. */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
