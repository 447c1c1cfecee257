import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Sign-in through OIDC and GitHub: which provider account belongs to which user, and the sign-ins
 * under way. A pending sign-in lives in the database rather than only in the browser's cookie so
 * that its state is spent once, on whichever replica the provider sends the browser back to.
 */
export const externalSignInMigration: Migration = {
  version: 17,
  name: 'external-sign-in',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('user_links')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('login_type', 'text', (c) => c.notNull())
      // The provider's id of the account: the issuer and subject for OIDC, the numeric user id for GitHub.
      .addColumn('linked_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_links_pkey', ['user_id', 'login_type'])
      .execute();
    await db.schema.createIndex('user_links_linked_id_unique').on('user_links').columns(['login_type', 'linked_id']).unique().execute();

    await db.schema
      .createTable('sign_in_states')
      // SHA-256 of the state the browser carries; the state itself is not kept.
      .addColumn('state_hash', 'text', (c) => c.primaryKey())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('code_verifier', 'text', (c) => c.notNull())
      .addColumn('redirect', 'text', (c) => c.notNull())
      // Set when the sign-in completes a conversion of this password user's login type.
      .addColumn('convert_user_id', 'text')
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sign_in_states_expires_at').on('sign_in_states').column('expires_at').execute();
  },
};
