import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { Migration } from './migration.js';

/** Uploaded licenses: the signed token as given, checked again whenever entitlements are computed. */
export const licensesMigration: Migration = {
  version: 15,
  name: 'licenses',
  async up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
    await db.schema
      .createTable('licenses')
      .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('uuid', 'text', (c) => c.notNull().unique())
      .addColumn('jwt', 'text', (c) => c.notNull())
      .addColumn('uploaded_at', 'text', (c) => c.notNull())
      // The end of the license's grace period (its `exp`), ISO 8601.
      .addColumn('exp', 'text', (c) => c.notNull())
      .execute();
  },
};
