import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, OrganizationTable } from '../schema.js';

export type OrganizationRow = Selectable<OrganizationTable>;

/** One organization by id. */
export async function getOrganizationById(db: Kysely<Database>, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One organization by name, case-insensitively. */
export async function getOrganizationByName(db: Kysely<Database>, name: string): Promise<OrganizationRow | undefined> {
  return db
    .selectFrom('organizations')
    .selectAll()
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
}

/** The organization every deployment has from its first start. */
export async function getDefaultOrganization(db: Kysely<Database>): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('is_default', '=', 1).executeTakeFirst();
}

/** Inserts an organization row as given. */
export async function insertOrganization(db: Kysely<Database>, row: OrganizationRow): Promise<OrganizationRow> {
  await db.insertInto('organizations').values(row).execute();
  return row;
}
