import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import { withConflicts } from '../db-errors.js';
import type { Database, UserTable } from '../schema.js';
import { insertMember } from './members.js';
import { ensureSiteValue } from './site-config.js';

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

/** Inserts a user row as given, with the start of its status history. */
export async function insertUser(db: Kysely<Database>, row: UserRow): Promise<UserRow> {
  await db.insertInto('users').values(row).execute();
  await recordStatusChange(db, row.id, row.created_at, row.status);
  return row;
}

/**
 * Applies a partial update to a live user. A new status, or the deletion, is also written to the
 * user's status history (at the change's `updated_at`), which the status insights count.
 */
export async function updateUser(db: Kysely<Database>, id: string, changes: Updateable<UserTable>): Promise<void> {
  const newStatus = changes.deleted === 1 ? 'deleted' : changes.status;
  const changedAt = changes.updated_at;
  if (newStatus === undefined || changedAt === undefined) {
    await db.updateTable('users').set(changes).where('id', '=', id).where('deleted', '=', 0).execute();
    return;
  }
  await inTransaction(db, async (trx) => {
    const result = await trx.updateTable('users').set(changes).where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) await recordStatusChange(trx, id, changedAt, newStatus);
  });
}

/** Marks live active users not seen since `cutoff` as dormant, in their status history too; returns how many changed. */
export async function markUsersDormant(db: Kysely<Database>, cutoff: string, now: string): Promise<number> {
  return inTransaction(db, async (trx) => {
    const due = trx.selectFrom('users').where('status', '=', 'active').where('deleted', '=', 0).where('last_seen_at', '<', cutoff);
    await trx
      .insertInto('user_status_changes')
      .columns(['user_id', 'changed_at', 'new_status'])
      .expression(due.select((eb) => ['id', eb.val(now).as('changed_at'), eb.val('dormant').as('new_status')]))
      .onConflict((oc) => oc.columns(['user_id', 'changed_at']).doUpdateSet({ new_status: 'dormant' }))
      .execute();
    const result = await trx
      .updateTable('users')
      .set({ status: 'dormant', updated_at: now })
      .where('status', '=', 'active')
      .where('deleted', '=', 0)
      .where('last_seen_at', '<', cutoff)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  });
}

/** Appends to a user's status history; a second change in the same millisecond replaces the first. */
async function recordStatusChange(db: Kysely<Database>, userId: string, changedAt: string, newStatus: string): Promise<void> {
  await db
    .insertInto('user_status_changes')
    .values({ user_id: userId, changed_at: changedAt, new_status: newStatus })
    .onConflict((oc) => oc.columns(['user_id', 'changed_at']).doUpdateSet({ new_status: newStatus }))
    .execute();
}

/** Runs `work` in the caller's transaction, or in a new one. */
function inTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/**
 * Sets a new password if the user still holds the passcode that was checked, and ends every key of
 * theirs, in one transaction. False when the passcode was spent meanwhile (a concurrent reset won).
 */
export async function resetPasswordWithPasscode(
  db: Kysely<Database>,
  change: { readonly userId: string; readonly hashedPasscode: string; readonly hashedPassword: string; readonly now: string },
): Promise<boolean> {
  const run = async (trx: Kysely<Database>): Promise<boolean> => {
    const result = await trx
      .updateTable('users')
      .set({
        hashed_password: change.hashedPassword,
        hashed_one_time_passcode: null,
        one_time_passcode_expires_at: null,
        updated_at: change.now,
      })
      .where('id', '=', change.userId)
      .where('deleted', '=', 0)
      .where('hashed_one_time_passcode', '=', change.hashedPasscode)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await trx.deleteFrom('api_keys').where('user_id', '=', change.userId).execute();
    return true;
  };
  // Inside a transaction already (an audited write): it joins it.
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/**
 * Replaces a password hash with a new hash of the same password, if the user still holds the one
 * that was checked (a password changed meanwhile stays changed). Nothing about the user changes
 * that anyone could see, so `updated_at` stays.
 */
export async function rehashPassword(
  db: Kysely<Database>,
  change: { readonly userId: string; readonly checkedHash: string; readonly hashedPassword: string },
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ hashed_password: change.hashedPassword })
    .where('id', '=', change.userId)
    .where('deleted', '=', 0)
    .where('hashed_password', '=', change.checkedHash)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Inserts a site administrator with memberships of `organizationIds`, in one transaction, and
 * records them under the site setting `claimKey` when no first user is recorded yet, so the
 * first-user sign-up of a new deployment is closed once an administrator exists.
 */
export async function insertSiteAdmin(
  db: Kysely<Database>,
  row: UserRow,
  organizationIds: readonly string[],
  claimKey: string,
): Promise<UserRow> {
  return db.transaction().execute(async (trx) => {
    await withConflicts(() => insertUser(trx, row));
    for (const organization_id of organizationIds) {
      await insertMember(trx, { user_id: row.id, organization_id, roles: '[]', created_at: row.created_at, updated_at: row.created_at });
    }
    await ensureSiteValue(trx, claimKey, row.id);
    return row;
  });
}

/**
 * Inserts the first user with their membership of `organizationId`, after claiming the site setting
 * `claimKey` for them, in one transaction. False (and nothing written) when another user holds it.
 */
export async function insertFirstUser(db: Kysely<Database>, row: UserRow, organizationId: string, claimKey: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if ((await ensureSiteValue(trx, claimKey, row.id)) !== row.id) return false;
    await withConflicts(() => insertUser(trx, row));
    await insertMember(trx, {
      user_id: row.id,
      organization_id: organizationId,
      roles: '[]',
      created_at: row.created_at,
      updated_at: row.created_at,
    });
    return true;
  });
}
