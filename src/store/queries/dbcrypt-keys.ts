import type { Kysely } from 'kysely';
import type { DbcryptKeyTable, Database } from '../schema.js';

/** A recorded encryption key (see migrations/0024-dbcrypt-keys.ts). */
export type DbcryptKeyRow = DbcryptKeyTable;

/** Every recorded key, oldest first. */
export function listDbcryptKeys(db: Kysely<Database>): Promise<DbcryptKeyRow[]> {
  return db.selectFrom('dbcrypt_keys').selectAll().orderBy('number').execute();
}

/** Records a new active key under the next number. */
export async function insertDbcryptKey(
  db: Kysely<Database>,
  key: { readonly number: number; readonly digest: string; readonly test: string; readonly now: string },
): Promise<void> {
  await db
    .insertInto('dbcrypt_keys')
    .values({
      number: key.number,
      active_key_digest: key.digest,
      revoked_key_digest: null,
      created_at: key.now,
      revoked_at: null,
      test: key.test,
    })
    .execute();
}

/** Marks an active key revoked; returns whether it was active. */
export async function revokeDbcryptKey(db: Kysely<Database>, digest: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('dbcrypt_keys')
    .set({ revoked_key_digest: digest, active_key_digest: null, revoked_at: now })
    .where('active_key_digest', '=', digest)
    .where('revoked_key_digest', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
