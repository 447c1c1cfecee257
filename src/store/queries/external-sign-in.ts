import type { Kysely, Selectable } from 'kysely';
import type { Database, SignInStateTable, UserLinkTable } from '../schema.js';
import { insertMember } from './members.js';
import { insertUser, updateUser, type UserRow } from './users.js';

export type UserLinkRow = Selectable<UserLinkTable>;
/** A link to write; its claims default to none. */
export type NewUserLink = Omit<UserLinkRow, 'claims'> & { readonly claims?: string };
export type SignInStateRow = Selectable<SignInStateTable>;

/** The live user a provider account is linked to. */
export async function getUserByLink(db: Kysely<Database>, loginType: string, linkedId: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('user_links')
    .innerJoin('users', 'users.id', 'user_links.user_id')
    .selectAll('users')
    .where('user_links.login_type', '=', loginType)
    .where('user_links.linked_id', '=', linkedId)
    .where('users.deleted', '=', 0)
    .executeTakeFirst();
}

/**
 * Links a provider account to a user, replacing the user's earlier link of that type and any link
 * of the account to a deleted user (deleted users keep their rows, so their links would linger).
 */
async function upsertLink(db: Kysely<Database>, link: NewUserLink): Promise<void> {
  await db
    .deleteFrom('user_links')
    .where('login_type', '=', link.login_type)
    .where((eb) =>
      eb.or([
        eb('user_id', '=', link.user_id),
        eb.and([eb('linked_id', '=', link.linked_id), eb('user_id', 'in', eb.selectFrom('users').select('id').where('deleted', '=', 1))]),
      ]),
    )
    .execute();
  await db
    .insertInto('user_links')
    .values({ claims: '{}', ...link })
    .execute();
}

/** Creates a user who signed up through a provider, with their memberships and link, in one transaction. */
export async function insertLinkedUser(
  db: Kysely<Database>,
  row: UserRow,
  organizationIds: readonly string[],
  linkedId: string,
): Promise<UserRow> {
  return db.transaction().execute(async (trx) => {
    await insertUser(trx, row);
    for (const organization_id of organizationIds) {
      await insertMember(trx, { user_id: row.id, organization_id, roles: '[]', created_at: row.created_at, updated_at: row.created_at });
    }
    await upsertLink(trx, {
      user_id: row.id,
      login_type: row.login_type,
      linked_id: linkedId,
      created_at: row.created_at,
      updated_at: row.created_at,
    });
    return row;
  });
}

/**
 * Links an existing user to a provider account, and for a conversion switches their login type and
 * drops their password, in one transaction. A conversion applies only while the user still signs
 * in with a password, so it happens once: false when it no longer does.
 */
export async function linkUser(db: Kysely<Database>, link: NewUserLink, conversion: { readonly fromPassword: boolean }): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (conversion.fromPassword) {
      const result = await trx
        .updateTable('users')
        .set({ login_type: link.login_type, hashed_password: '', updated_at: link.updated_at })
        .where('id', '=', link.user_id)
        .where('deleted', '=', 0)
        .where('login_type', '=', 'password')
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
    } else {
      await updateUser(trx, link.user_id, { updated_at: link.updated_at });
    }
    await upsertLink(trx, link);
    return true;
  });
}

/** Stores a sign-in under way, and forgets those that expired without coming back. */
export async function insertSignInState(db: Kysely<Database>, row: SignInStateRow, now: string): Promise<void> {
  await db.deleteFrom('sign_in_states').where('expires_at', '<', now).execute();
  await db.insertInto('sign_in_states').values(row).execute();
}

/** Removes and returns a sign-in under way: only one caller ever gets it. */
export async function takeSignInState(db: Kysely<Database>, stateHash: string): Promise<SignInStateRow | undefined> {
  return db.deleteFrom('sign_in_states').where('state_hash', '=', stateHash).returningAll().executeTakeFirst();
}
