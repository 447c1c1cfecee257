import type { Kysely } from 'kysely';
import { inTransaction } from './in-transaction.js';
import type { Database } from '../schema.js';

/** A user named in a workspace ACL, with the fields its answer shows. */
export interface AclUserRow {
  readonly id: string;
  readonly username: string;
  readonly name: string;
  readonly avatar_url: string;
  readonly email: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_seen_at: string | null;
  readonly status: string;
  readonly login_type: string;
}

/** A group named in a workspace ACL, with its organization's names and its members. */
export interface AclGroupRow {
  readonly id: string;
  readonly organization_id: string;
  readonly name: string;
  readonly display_name: string;
  readonly avatar_url: string;
  readonly quota_allowance: number;
  readonly source: string;
  readonly organization_name: string;
  readonly organization_display_name: string;
  readonly members: AclUserRow[];
}

const USER_COLUMNS = [
  'u.id',
  'u.username',
  'u.name',
  'u.avatar_url',
  'u.email',
  'u.created_at',
  'u.updated_at',
  'u.last_seen_at',
  'u.status',
  'u.login_type',
] as const;

/** Live users among `ids` who are members of the organization. */
export async function listOrgMembersByIds(db: Kysely<Database>, organizationId: string, ids: readonly string[]): Promise<AclUserRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('users as u')
    .innerJoin('organization_members as m', 'm.user_id', 'u.id')
    .select(USER_COLUMNS)
    .where('m.organization_id', '=', organizationId)
    .where('u.deleted', '=', 0)
    .where('u.id', 'in', [...ids])
    .orderBy('u.username')
    .execute();
}

/**
 * The organization's groups among `ids`, with their members, in three queries. The Everyone group
 * (whose id is the organization's) has the organization's members as its own.
 */
export async function listOrgGroupsByIds(db: Kysely<Database>, organizationId: string, ids: readonly string[]): Promise<AclGroupRow[]> {
  if (ids.length === 0) return [];
  const groups = await db
    .selectFrom('groups as g')
    .innerJoin('organizations as o', 'o.id', 'g.organization_id')
    .select([
      'g.id',
      'g.organization_id',
      'g.name',
      'g.display_name',
      'g.avatar_url',
      'g.quota_allowance',
      'g.source',
      'o.name as organization_name',
      'o.display_name as organization_display_name',
    ])
    .where('g.organization_id', '=', organizationId)
    .where('g.id', 'in', [...ids])
    .orderBy('g.name')
    .execute();
  if (groups.length === 0) return [];
  const stored = await db
    .selectFrom('group_members as gm')
    .innerJoin('users as u', 'u.id', 'gm.user_id')
    .select(['gm.group_id', ...USER_COLUMNS])
    .where(
      'gm.group_id',
      'in',
      groups.map((group) => group.id),
    )
    .where('u.deleted', '=', 0)
    .orderBy('u.username')
    .execute();
  const everyone = groups.some((group) => group.id === organizationId) ? await listOrgMembers(db, organizationId) : [];
  return groups.map((group) => ({
    ...group,
    members:
      group.id === organizationId
        ? everyone
        : stored.filter((row) => row.group_id === group.id).map(({ group_id: _groupId, ...user }) => user),
  }));
}

/** The ids of the users the groups reach: their stored members, and the organization's for its Everyone group. */
export async function listUserIdsOfGroups(db: Kysely<Database>, organizationId: string, groupIds: readonly string[]): Promise<string[]> {
  if (groupIds.length === 0) return [];
  const ids = new Set<string>();
  if (groupIds.includes(organizationId)) for (const row of await listOrgMembers(db, organizationId)) ids.add(row.id);
  const rows = await db
    .selectFrom('group_members')
    .select('user_id')
    .where('group_id', 'in', [...groupIds])
    .execute();
  for (const row of rows) ids.add(row.user_id);
  return [...ids];
}

async function listOrgMembers(db: Kysely<Database>, organizationId: string): Promise<AclUserRow[]> {
  return db
    .selectFrom('users as u')
    .innerJoin('organization_members as m', 'm.user_id', 'u.id')
    .select(USER_COLUMNS)
    .where('m.organization_id', '=', organizationId)
    .where('u.deleted', '=', 0)
    .orderBy('u.username')
    .execute();
}

/**
 * Writes a workspace's ACLs, unless its organization has sharing turned off (checked in the same
 * statement, so a share cannot slip in beside the switch). Answers whether it was written.
 */
export async function setWorkspaceAcl(
  db: Kysely<Database>,
  workspaceId: string,
  acl: { readonly userAcl: string; readonly groupAcl: string },
): Promise<boolean> {
  const result = await db
    .updateTable('workspaces')
    .set({ user_acl: acl.userAcl, group_acl: acl.groupAcl })
    .where('id', '=', workspaceId)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('organizations as o')
            .select('o.id')
            .whereRef('o.id', '=', 'workspaces.organization_id')
            .where('o.workspace_sharing_disabled', '=', 1),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Empties a workspace's ACLs (always allowed: taking access away is never refused). */
export async function clearWorkspaceAcl(db: Kysely<Database>, workspaceId: string): Promise<void> {
  await db.updateTable('workspaces').set({ user_acl: '{}', group_acl: '{}' }).where('id', '=', workspaceId).execute();
}

/**
 * Turns an organization's workspace sharing on or off. Turning it off empties the ACLs of all its
 * workspaces in the same transaction; answers those ACLs as they were, so their users can be cut off.
 */
export async function setWorkspaceSharingDisabled(
  db: Kysely<Database>,
  organizationId: string,
  disabled: boolean,
): Promise<{ user_acl: string; group_acl: string }[]> {
  return inTransaction(db, async (tx) => {
    await tx
      .updateTable('organizations')
      .set({ workspace_sharing_disabled: disabled ? 1 : 0 })
      .where('id', '=', organizationId)
      .execute();
    if (!disabled) return [];
    const shared = await tx
      .selectFrom('workspaces')
      .select(['id', 'user_acl', 'group_acl'])
      .where('organization_id', '=', organizationId)
      .where((eb) => eb.or([eb('user_acl', '!=', '{}'), eb('group_acl', '!=', '{}')]))
      .execute();
    if (shared.length > 0)
      await tx
        .updateTable('workspaces')
        .set({ user_acl: '{}', group_acl: '{}' })
        .where(
          'id',
          'in',
          shared.map((row) => row.id),
        )
        .execute();
    return shared.map(({ user_acl, group_acl }) => ({ user_acl, group_acl }));
  });
}

/** Whether the organization has workspace sharing turned off. */
export async function isWorkspaceSharingDisabled(db: Kysely<Database>, organizationId: string): Promise<boolean | undefined> {
  const row = await db.selectFrom('organizations').select('workspace_sharing_disabled').where('id', '=', organizationId).executeTakeFirst();
  return row === undefined ? undefined : row.workspace_sharing_disabled === 1;
}
