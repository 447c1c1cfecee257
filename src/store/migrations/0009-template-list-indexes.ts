import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * An index in the order template lists page in (live templates by name), so a page is read from
 * the front of the index and the scan stops once the page is full, however many templates there are.
 */
export const templateListIndexesMigration: Migration = {
  version: 9,
  name: 'template-list-indexes',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('templates_live_by_name').on('templates').columns(['deleted', 'name', 'id']).execute();
  },
};
