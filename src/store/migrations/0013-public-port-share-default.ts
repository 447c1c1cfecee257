import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * A template's `max_port_share_level` defaults to `public`, as in the reference's open-source
 * edition (see docs/decisions.md). Templates that exist keep the level they have: it may have been
 * chosen, and widening who can reach shared ports is not a migration's call.
 *
 * PostgreSQL changes a column's default in place. SQLite cannot, and rebuilding the table would
 * cascade-delete template versions through their foreign key, so there the column is replaced:
 * renamed aside, added again with the new default, filled from the old one, and the old dropped.
 */
export const publicPortShareDefaultMigration: Migration = {
  version: 13,
  name: 'public-port-share-default',
  async up(db: Kysely<unknown>, dialect): Promise<void> {
    if (dialect === 'postgres') {
      await sql`ALTER TABLE templates ALTER COLUMN max_port_share_level SET DEFAULT 'public'`.execute(db);
      return;
    }
    await db.schema.alterTable('templates').renameColumn('max_port_share_level', 'max_port_share_level_before').execute();
    await db.schema
      .alterTable('templates')
      .addColumn('max_port_share_level', 'text', (c) => c.notNull().defaultTo('public'))
      .execute();
    await sql`UPDATE templates SET max_port_share_level = max_port_share_level_before`.execute(db);
    await db.schema.alterTable('templates').dropColumn('max_port_share_level_before').execute();
  },
};
