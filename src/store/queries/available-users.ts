import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Someone a workspace could be shared with, in the few fields the sharing picker shows. */
export interface AvailableUserRow {
  readonly id: string;
  readonly username: string;
  readonly name: string;
  readonly avatar_url: string;
}

/**
 * The active (not suspended, not deleted) members of an organization but one, by username,
 * matching `search` in username, name or email.
 */
export async function listAvailableUsers(
  db: Kysely<Database>,
  dialect: 'postgres' | 'sqlite',
  query: {
    readonly organizationId: string;
    readonly exceptUserId: string;
    readonly search: string;
    readonly limit: number;
    readonly offset: number;
  },
): Promise<AvailableUserRow[]> {
  let rows = db
    .selectFrom('users as u')
    .innerJoin('organization_members as m', 'm.user_id', 'u.id')
    .select(['u.id', 'u.username', 'u.name', 'u.avatar_url'])
    .where('m.organization_id', '=', query.organizationId)
    .where('u.deleted', '=', 0)
    .where('u.status', '!=', 'suspended')
    .where('u.id', '!=', query.exceptUserId);
  const text = query.search.trim().toLowerCase();
  if (text !== '') {
    const pattern = `%${text}%`;
    rows = rows.where((eb) =>
      eb.or([
        eb(sql`lower(u.username)`, 'like', pattern),
        eb(sql`lower(u.name)`, 'like', pattern),
        eb(sql`lower(u.email)`, 'like', pattern),
      ]),
    );
  }
  rows = rows.orderBy('u.username');
  if (query.limit > 0) rows = rows.limit(query.limit);
  // SQLite accepts OFFSET only after a LIMIT; -1 there means no limit.
  if (query.offset > 0) rows = rows.$if(query.limit <= 0 && dialect === 'sqlite', (qb) => qb.limit(-1)).offset(query.offset);
  return rows.execute();
}
