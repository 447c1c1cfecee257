import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Users' links to external auth providers (git providers and other OAuth2 apps), and the link
 * flows under way. A token column holds the token as is, or sealed with the key whose digest its
 * `_key_id` column names (see src/store/token-cipher.ts), so that keys can be added and rotated
 * without a schema change.
 */
export const externalAuthMigration: Migration = {
  version: 23,
  name: 'external-auth',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('external_auth_links')
      // The provider's configured id; a link outlives its provider's configuration, so that it can be removed.
      .addColumn('provider_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('oauth_access_token', 'text', (c) => c.notNull())
      .addColumn('oauth_access_token_key_id', 'text')
      // Empty when the provider gave none.
      .addColumn('oauth_refresh_token', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('oauth_refresh_token_key_id', 'text')
      // ISO 8601; null when the access token does not expire.
      .addColumn('oauth_expiry', 'text')
      // JSON object: the provider's extra token fields the provider's settings keep.
      .addColumn('oauth_extra', 'text', (c) => c.notNull().defaultTo('{}'))
      // Why the link must be made again (a refused refresh, a failed validation); empty while it works.
      .addColumn('validate_error', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('external_auth_links_pkey', ['provider_id', 'user_id'])
      .execute();
    await db.schema.createIndex('external_auth_links_user_id').on('external_auth_links').column('user_id').execute();

    await db.schema
      .createTable('external_auth_states')
      // SHA-256 of the state the browser carries; the state itself is not kept.
      .addColumn('state_hash', 'text', (c) => c.primaryKey())
      .addColumn('provider_id', 'text', (c) => c.notNull())
      // The signed-in user who started the link: the callback links this user's account and no other.
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('code_verifier', 'text', (c) => c.notNull())
      // Same-origin path the browser goes to once linked.
      .addColumn('redirect', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('external_auth_states_expires_at').on('external_auth_states').column('expires_at').execute();
  },
};
