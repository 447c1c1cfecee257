import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The favorites of each owner, in list order: a workspace list shows the requester's own first,
 * and without this index finding them read every workspace the requester owns.
 */
export const workspaceFavoritesIndexMigration: Migration = {
  version: 30,
  name: 'workspace-favorites-index',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('workspaces_live_favorites')
      .on('workspaces')
      .columns(['owner_id', 'name'])
      .where(sql<boolean>`deleted = 0 and favorite = 1`)
      .execute();
  },
};
