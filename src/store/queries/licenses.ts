import type { Kysely, Selectable } from 'kysely';
import type { Database, LicenseTable } from '../schema.js';

export type LicenseRow = Selectable<LicenseTable>;

/** Stores a license and returns it with its id. */
export async function insertLicense(db: Kysely<Database>, row: Omit<LicenseRow, 'id'>): Promise<LicenseRow> {
  const inserted = await db.insertInto('licenses').values(row).returning('id').executeTakeFirstOrThrow();
  return { ...row, id: Number(inserted.id) };
}

/** Every stored license, oldest first. */
export async function listLicenses(db: Kysely<Database>): Promise<LicenseRow[]> {
  const rows = await db.selectFrom('licenses').selectAll().orderBy('id').execute();
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/** License ids are a PostgreSQL `serial`, a 32-bit integer: a larger number names no license. */
const MAX_LICENSE_ID = 2 ** 31 - 1;

/** A stored license by id, or undefined. */
export async function getLicense(db: Kysely<Database>, id: number): Promise<LicenseRow | undefined> {
  if (!Number.isSafeInteger(id) || id > MAX_LICENSE_ID) return undefined;
  const row = await db.selectFrom('licenses').selectAll().where('id', '=', id).executeTakeFirst();
  return row && { ...row, id: Number(row.id) };
}

/** Deletes a license; false when there was none with that id. */
export async function deleteLicense(db: Kysely<Database>, id: number): Promise<boolean> {
  // PostgreSQL refuses to compare the column with a number out of its range instead of matching nothing.
  if (!Number.isSafeInteger(id) || id > MAX_LICENSE_ID) return false;
  const result = await db.deleteFrom('licenses').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Live, active users: those a user limit counts. */
export async function countActiveUsers(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('deleted', '=', 0)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
