import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The keys tokens have been encrypted with, as the reference keeps them: a key is named by its
 * digest (src/store/aes-token-cipher.ts), never stored itself. A key in use has its digest in
 * `active_key_digest`; `cove server dbcrypt` moves it to `revoked_key_digest` once no token needs
 * it, and a revoked key is refused at start. `test` is a known value sealed with the key, which
 * proves a key given at start to be the recorded one.
 */
export const dbcryptKeysMigration: Migration = {
  version: 24,
  name: 'dbcrypt-keys',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('dbcrypt_keys')
      .addColumn('number', 'integer', (c) => c.primaryKey())
      .addColumn('active_key_digest', 'text', (c) => c.unique())
      .addColumn('revoked_key_digest', 'text', (c) => c.unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      // ISO 8601; null while the key is active.
      .addColumn('revoked_at', 'text')
      .addColumn('test', 'text', (c) => c.notNull())
      .execute();
  },
};
