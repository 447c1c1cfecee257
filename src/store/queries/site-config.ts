import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Reads one site setting. */
export async function getSiteValue(db: Kysely<Database>, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('site_config').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/**
 * Stores `value` under `key` unless a value is already there, and returns the one that won, so two
 * replicas starting at once agree on values such as the deployment id.
 */
export async function ensureSiteValue(db: Kysely<Database>, key: string, value: string): Promise<string> {
  await db
    .insertInto('site_config')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return (await getSiteValue(db, key)) ?? value;
}

/** Replaces one site setting. */
export async function setSiteValue(db: Kysely<Database>, key: string, value: string): Promise<void> {
  await db
    .insertInto('site_config')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
