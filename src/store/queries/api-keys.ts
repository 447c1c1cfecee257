import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ApiKeyTable, Database } from '../schema.js';

export type ApiKeyRow = Selectable<ApiKeyTable>;

/** One key by its public id. */
export async function getApiKeyById(db: Kysely<Database>, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Inserts a key row as given. */
export async function insertApiKey(db: Kysely<Database>, row: ApiKeyRow): Promise<ApiKeyRow> {
  await db.insertInto('api_keys').values(row).execute();
  return row;
}

/** Updates usage and expiry of a key. */
export async function updateApiKey(db: Kysely<Database>, id: string, changes: Updateable<ApiKeyTable>): Promise<void> {
  await db.updateTable('api_keys').set(changes).where('id', '=', id).execute();
}

/** Deletes one key; true when it existed. */
export async function deleteApiKey(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
