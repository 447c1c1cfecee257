import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Failed sign-ins per account, so that guessing one account's password slows down whichever
 * replica, address or spelling of the path the guesses come through. In the database rather than
 * in memory because a replica's own count would let guesses spread over replicas go uncounted.
 */
export const signInFailuresMigration: Migration = {
  version: 19,
  name: 'sign-in-failures',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('sign_in_failures')
      // Hex SHA-256 of what was guessed and the normalized email: the emails typed are not kept.
      .addColumn('account', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('blocked_until', 'text', (c) => c.notNull())
      .addColumn('last_attempt_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sign_in_failures_last_attempt_at').on('sign_in_failures').column('last_attempt_at').execute();
  },
};
