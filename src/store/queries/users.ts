import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Database, UserTable } from '../schema.js';

export type UserRow = Selectable<UserTable>;

/** What a user list is narrowed to: free text over username and email, and exact filters. */
export interface UserFilter {
  readonly text: string | undefined;
  readonly status: string | undefined;
  readonly role: string | undefined;
  readonly loginType: string | undefined;
}

/** A live (not deleted) user by id. */
export async function getUserById(db: Kysely<Database>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
}

/** A live user by username, case-insensitively. */
export async function getUserByUsername(db: Kysely<Database>, username: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(username)`, '=', username.toLowerCase())
    .where('deleted', '=', 0)
    .executeTakeFirst();
}

/** A live user by email, case-insensitively. */
export async function getUserByEmail(db: Kysely<Database>, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where('deleted', '=', 0)
    .executeTakeFirst();
}

/** How many live users there are. */
export async function countUsers(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('deleted', '=', 0)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Inserts a user row as given. */
export async function insertUser(db: Kysely<Database>, row: UserRow): Promise<UserRow> {
  await db.insertInto('users').values(row).execute();
  return row;
}

/** Applies a partial update to a live user. */
export async function updateUser(db: Kysely<Database>, id: string, changes: Updateable<UserTable>): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).where('deleted', '=', 0).execute();
}
