import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Indexes that let user and member lists read one page in their order instead of sorting every
 * row: live users by creation (`GET /users`) and by username (member listings).
 */
export const identityListIndexesMigration: Migration = {
  version: 8,
  name: 'identity-list-indexes',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('users_live_created').on('users').columns(['created_at', 'id']).where(sql.ref('deleted'), '=', 0).execute();
    await db.schema.createIndex('users_live_username').on('users').column('username').where(sql.ref('deleted'), '=', 0).execute();
  },
};
