import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** The ids of the groups a user is a stored member of (the implicit "Everyone" groups are not stored). */
export async function listGroupIdsOfUser(db: Kysely<Database>, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('group_members').select('group_id').where('user_id', '=', userId).execute();
  return rows.map((row) => row.group_id);
}
