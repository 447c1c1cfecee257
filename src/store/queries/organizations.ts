import { sql, type Kysely, type Selectable } from 'kysely';
import { EVERYONE_GROUP_NAME } from '../../lib/everyone-group.js';
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

/** Inserts an organization row as given, with its "Everyone" group (whose id is the organization's); run it in a transaction. */
export async function insertOrganization(db: Kysely<Database>, row: OrganizationRow): Promise<OrganizationRow> {
  await db.insertInto('organizations').values(row).execute();
  await db
    .insertInto('groups')
    .values({
      id: row.id,
      organization_id: row.id,
      name: EVERYONE_GROUP_NAME,
      display_name: '',
      avatar_url: '',
      quota_allowance: 0,
      source: 'user',
      created_at: row.created_at,
    })
    .execute();
  return row;
}
