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
