import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The description and icon a version's template file declares, kept with the version (empty when
 * the file declares none): a template made from the version, or a version made active, takes them.
 */
export const templateVersionDeclaredMetadataMigration: Migration = {
  version: 28,
  name: 'template-version-declared-metadata',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('template_versions')
      .addColumn('declared_description', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('template_versions')
      .addColumn('declared_icon', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  },
};
