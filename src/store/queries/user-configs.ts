import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Every stored setting of one user, by key. */
export async function getUserConfigs(db: Kysely<Database>, userId: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('user_configs').select(['key', 'value']).where('user_id', '=', userId).execute();
  return new Map(rows.map((row) => [row.key, row.value]));
}

/** Stores each of `values` for the user, replacing what was there under the same key. */
export async function setUserConfigs(db: Kysely<Database>, userId: string, values: Readonly<Record<string, string>>): Promise<void> {
  const rows = Object.entries(values).map(([key, value]) => ({ user_id: userId, key, value }));
  if (rows.length === 0) return;
  await db
    .insertInto('user_configs')
    .values(rows)
    .onConflict((oc) => oc.columns(['user_id', 'key']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
    .execute();
}
