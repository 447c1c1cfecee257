import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, ProvisionerKeyTable } from '../schema.js';

export type ProvisionerKeyRow = Selectable<ProvisionerKeyTable>;

/** The key whose secret hashes to this value. */
export async function getProvisionerKeyByHash(db: Kysely<Database>, hashedSecret: string): Promise<ProvisionerKeyRow | undefined> {
  return db.selectFrom('provisioner_keys').selectAll().where('hashed_secret', '=', hashedSecret).executeTakeFirst();
}

/** The keys of an organization, by name. */
export async function listProvisionerKeys(db: Kysely<Database>, organizationId: string): Promise<ProvisionerKeyRow[]> {
  return db.selectFrom('provisioner_keys').selectAll().where('organization_id', '=', organizationId).orderBy('name').execute();
}

export async function insertProvisionerKey(db: Kysely<Database>, row: ProvisionerKeyRow): Promise<void> {
  await db.insertInto('provisioner_keys').values(row).execute();
}

/** Deletes a key by name; returns whether one was deleted. */
export async function deleteProvisionerKey(db: Kysely<Database>, organizationId: string, name: string): Promise<boolean> {
  const result = await db
    .deleteFrom('provisioner_keys')
    .where('organization_id', '=', organizationId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
