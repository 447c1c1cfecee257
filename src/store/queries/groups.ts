import type { Kysely, Selectable } from 'kysely';
import type { Database, GroupTable } from '../schema.js';

export type GroupRow = Selectable<GroupTable>;

/** A group with the names of its organization, as group listings show it. */
export type GroupWithOrganization = GroupRow & {
  readonly organization_name: string;
  readonly organization_display_name: string;
};

/** A member of a group with the user fields member listings show. */
export interface GroupMemberUser {
  readonly group_id: string;
  readonly id: string;
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly avatar_url: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_seen_at: string;
  readonly status: string;
  readonly login_type: string;
  readonly theme_preference: string;
}

/** The ids of the groups a user is a stored member of (the implicit "Everyone" groups are not stored). */
export async function listGroupIdsOfUser(db: Kysely<Database>, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('group_members').select('group_id').where('user_id', '=', userId).execute();
  return rows.map((row) => row.group_id);
}

/** A group joined with its organization's names; filter it further before running it. */
export function selectGroupsWithOrganization(db: Kysely<Database>) {
  return db
    .selectFrom('groups as g')
    .innerJoin('organizations as o', 'o.id', 'g.organization_id')
    .selectAll('g')
    .select(['o.name as organization_name', 'o.display_name as organization_display_name']);
}

/** Inserts a group row as given. */
export async function insertGroup(db: Kysely<Database>, row: GroupRow): Promise<GroupRow> {
  await db.insertInto('groups').values(row).execute();
  return row;
}

/** The user ids among `userIds` that are members of the organization and not deleted. */
export async function organizationMemberIds(
  db: Kysely<Database>,
  organizationId: string,
  userIds: readonly string[],
): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('organization_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('m.user_id')
    .where('m.organization_id', '=', organizationId)
    .where('u.deleted', '=', 0)
    .where('m.user_id', 'in', [...userIds])
    .execute();
  return new Set(rows.map((row) => row.user_id));
}

/** The user ids of a group's stored members (empty for an "Everyone" group, whose members are implicit). */
export async function storedMemberIds(db: Kysely<Database>, groupId: string): Promise<string[]> {
  const rows = await db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).execute();
  return rows.map((row) => row.user_id);
}
