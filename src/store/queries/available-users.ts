import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { UserRow } from './users.js';

/** Someone a workspace could be shared with, in the few fields the sharing picker shows. */
export interface AvailableUserRow {
  readonly id: string;
  readonly username: string;
  readonly name: string;
  readonly avatar_url: string;
}

/** Whom a picker asks for: an organization's members, maybe but one, matching a search, one page. */
export interface AvailableUsersQuery {
  readonly organizationId: string;
  /** A user left out (a workspace's owner), or none. */
  readonly exceptUserId?: string;
  readonly search: string;
  /** 0 for no limit. */
  readonly limit: number;
  readonly offset: number;
}

/**
 * The active (not suspended, not deleted) members of an organization, by username, matching
 * `search` in username, name or email, one page, without their columns chosen.
 */
function availableUsers(db: Kysely<Database>, dialect: 'postgres' | 'sqlite', query: AvailableUsersQuery) {
  let rows = db
    .selectFrom('users as u')
    .innerJoin('organization_members as m', 'm.user_id', 'u.id')
    .where('m.organization_id', '=', query.organizationId)
    .where('u.deleted', '=', 0)
    .where('u.status', '!=', 'suspended');
  if (query.exceptUserId !== undefined) rows = rows.where('u.id', '!=', query.exceptUserId);
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
  return rows;
}

/** A page of available users in the few fields the sharing picker shows. */
export async function listAvailableUsers(
  db: Kysely<Database>,
  dialect: 'postgres' | 'sqlite',
  query: AvailableUsersQuery,
): Promise<AvailableUserRow[]> {
  return availableUsers(db, dialect, query).select(['u.id', 'u.username', 'u.name', 'u.avatar_url']).execute();
}

/** A page of available users, whole rows (for answers that show every user field). */
export async function listAvailableUserRows(
  db: Kysely<Database>,
  dialect: 'postgres' | 'sqlite',
  query: AvailableUsersQuery,
): Promise<UserRow[]> {
  return availableUsers(db, dialect, query).selectAll('u').execute();
}
