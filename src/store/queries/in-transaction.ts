import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * Runs `work` in the caller's transaction, or in a new one. An audited change hands its queries the
 * transaction its audit entry is written in; a query that needs a transaction of its own joins that one.
 */
export function inTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
