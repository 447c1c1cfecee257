import type { Kysely, Selectable } from 'kysely';
import type { Database, OrganizationMemberTable } from '../schema.js';

export type MemberRow = Selectable<OrganizationMemberTable>;

/** Every membership of one user. */
export async function listMembershipsOfUser(db: Kysely<Database>, userId: string): Promise<MemberRow[]> {
  return db.selectFrom('organization_members').selectAll().where('user_id', '=', userId).execute();
}

/** Inserts a membership row as given. */
export async function insertMember(db: Kysely<Database>, row: MemberRow): Promise<MemberRow> {
  await db.insertInto('organization_members').values(row).execute();
  return row;
}

/** The organization ids of several users, oldest membership first, in one query. */
export async function organizationIdsOfUsers(db: Kysely<Database>, userIds: readonly string[]): Promise<Map<string, string[]>> {
  const byUser = new Map<string, string[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const rows = await db
    .selectFrom('organization_members')
    .select(['user_id', 'organization_id'])
    .where('user_id', 'in', [...userIds])
    .orderBy('created_at')
    .execute();
  for (const row of rows) byUser.get(row.user_id)?.push(row.organization_id);
  return byUser;
}
