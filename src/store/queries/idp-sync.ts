import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** A group as sync sees it. */
export interface SyncGroupRow {
  readonly id: string;
  readonly name: string;
  readonly source: string;
}

/** Stores the claims of a user's last sign-in on their provider link. */
export async function setLinkClaims(db: Kysely<Database>, userId: string, loginType: string, claims: string, now: string): Promise<void> {
  await db
    .updateTable('user_links')
    .set({ claims, updated_at: now })
    .where('user_id', '=', userId)
    .where('login_type', '=', loginType)
    .execute();
}

/** The claims stored on a user's link of one provider, with when they arrived; undefined without a link. */
export async function getLinkClaims(
  db: Kysely<Database>,
  userId: string,
  loginType: string,
): Promise<{ readonly claims: string; readonly updated_at: string } | undefined> {
  return db
    .selectFrom('user_links')
    .select(['claims', 'updated_at'])
    .where('user_id', '=', userId)
    .where('login_type', '=', loginType)
    .executeTakeFirst();
}

/** The stored groups of an organization (its Everyone group among them), by name. */
export async function listOrganizationGroups(db: Kysely<Database>, organizationId: string): Promise<SyncGroupRow[]> {
  return db.selectFrom('groups').select(['id', 'name', 'source']).where('organization_id', '=', organizationId).orderBy('name').execute();
}

/** Creates the named groups with source `oidc`; a name taken meanwhile (another sign-in) is left as it is. */
export async function insertMissingGroups(
  db: Kysely<Database>,
  organizationId: string,
  groups: readonly { readonly id: string; readonly name: string }[],
  now: string,
): Promise<void> {
  if (groups.length === 0) return;
  await db
    .insertInto('groups')
    .values(
      groups.map((group) => ({
        id: group.id,
        organization_id: organizationId,
        name: group.name,
        display_name: '',
        avatar_url: '',
        quota_allowance: 0,
        source: 'oidc',
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['organization_id', 'name']).doNothing())
    .execute();
}

/** The ids of the groups of one organization the user is a stored member of. */
export async function memberGroupIdsInOrganization(db: Kysely<Database>, userId: string, organizationId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('group_members')
    .innerJoin('groups', 'groups.id', 'group_members.group_id')
    .select('group_members.group_id')
    .where('group_members.user_id', '=', userId)
    .where('groups.organization_id', '=', organizationId)
    .execute();
  return rows.map((row) => row.group_id);
}

/** Adds and removes a user's memberships. */
export async function changeMemberships(
  db: Kysely<Database>,
  userId: string,
  change: { readonly add: readonly string[]; readonly remove: readonly string[] },
): Promise<void> {
  if (change.remove.length > 0) {
    await db
      .deleteFrom('group_members')
      .where('user_id', '=', userId)
      .where('group_id', 'in', [...change.remove])
      .execute();
  }
  if (change.add.length > 0) {
    await db
      .insertInto('group_members')
      .values(change.add.map((group_id) => ({ group_id, user_id: userId })))
      .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
      .execute();
  }
}
