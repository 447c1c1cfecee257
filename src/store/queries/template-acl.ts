import type { Kysely, Selectable } from 'kysely';
import { inTransaction } from './in-transaction.js';
import type { Database, GroupTable } from '../schema.js';
import type { UserRow } from './users.js';
import { organizationIdsOfUsers } from './members.js';

/** A group row with what an ACL answer shows of it: its organization's names and its members. */
export interface AclGroupRow {
  readonly group: Selectable<GroupTable>;
  readonly organizationName: string;
  readonly organizationDisplayName: string;
  /** The members (for the "Everyone" group, the organization's members), deleted users left out. */
  readonly members: readonly UserRow[];
}

/** Users by id, deleted ones left out, with the organizations each is a member of. */
export async function aclUsers(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<{ readonly users: UserRow[]; readonly organizationIds: Map<string, string[]> }> {
  if (ids.length === 0) return { users: [], organizationIds: new Map() };
  const users = await db
    .selectFrom('users')
    .selectAll()
    .where('id', 'in', [...ids])
    .where('deleted', '=', 0)
    .orderBy('username')
    .execute();
  return {
    users,
    organizationIds: await organizationIdsOfUsers(
      db,
      users.map((user) => user.id),
    ),
  };
}

/**
 * Groups of one organization with their members, by name; `ids` narrows them to those ids. The
 * "Everyone" group's members are the organization's, as no membership of it is stored.
 */
export async function aclGroups(db: Kysely<Database>, organizationId: string, ids?: readonly string[]): Promise<AclGroupRow[]> {
  if (ids !== undefined && ids.length === 0) return [];
  let query = db.selectFrom('groups').selectAll().where('organization_id', '=', organizationId);
  if (ids !== undefined) query = query.where('id', 'in', [...ids]);
  const groups = await query.orderBy('name').execute();
  if (groups.length === 0) return [];
  const organization = await db
    .selectFrom('organizations')
    .select(['name', 'display_name'])
    .where('id', '=', organizationId)
    .executeTakeFirst();
  const stored = groups.filter((group) => group.id !== organizationId).map((group) => group.id);
  const memberships =
    stored.length === 0
      ? []
      : await db
          .selectFrom('group_members as gm')
          .innerJoin('users as u', 'u.id', 'gm.user_id')
          .selectAll('u')
          .select('gm.group_id')
          .where('gm.group_id', 'in', stored)
          .where('u.deleted', '=', 0)
          .orderBy('u.username')
          .execute();
  const everyone = groups.some((group) => group.id === organizationId) ? await organizationUsers(db, organizationId) : [];
  return groups.map((group) => ({
    group,
    organizationName: organization?.name ?? '',
    organizationDisplayName: organization?.display_name ?? '',
    members:
      group.id === organizationId
        ? everyone
        : memberships.filter((row) => row.group_id === group.id).map(({ group_id: _groupId, ...user }) => user),
  }));
}

/** The organization's members who are neither deleted nor suspended, by username. */
export async function organizationUsers(db: Kysely<Database>, organizationId: string): Promise<UserRow[]> {
  return db
    .selectFrom('users as u')
    .innerJoin('organization_members as m', 'm.user_id', 'u.id')
    .selectAll('u')
    .where('m.organization_id', '=', organizationId)
    .where('u.deleted', '=', 0)
    .where('u.status', '!=', 'suspended')
    .orderBy('u.username')
    .execute();
}

/** Which of `ids` name no live user. */
export async function missingUserIds(db: Kysely<Database>, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await db
    .selectFrom('users')
    .select('id')
    .where('id', 'in', [...ids])
    .where('deleted', '=', 0)
    .execute();
  const known = new Set(found.map((row) => row.id));
  return ids.filter((id) => !known.has(id));
}

/** Which of `ids` name no group of the organization. */
export async function missingGroupIds(db: Kysely<Database>, organizationId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await db
    .selectFrom('groups')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .execute();
  const known = new Set(found.map((row) => row.id));
  return ids.filter((id) => !known.has(id));
}

/**
 * Applies entries to a template's ACLs in one transaction (read, change, write), so concurrent
 * changes to other entries are kept; an entry with no actions is removed. Returns the new ACLs.
 */
export async function changeTemplateAcl(
  db: Kysely<Database>,
  templateId: string,
  changes: {
    readonly users: Readonly<Record<string, readonly string[]>>;
    readonly groups: Readonly<Record<string, readonly string[]>>;
  },
  now: string,
): Promise<{ user_acl: string; group_acl: string } | undefined> {
  return inTransaction(db, async (trx) => {
    const row = await trx.selectFrom('templates').select(['user_acl', 'group_acl']).where('id', '=', templateId).executeTakeFirst();
    if (!row) return undefined;
    const next = { user_acl: apply(row.user_acl, changes.users), group_acl: apply(row.group_acl, changes.groups) };
    await trx
      .updateTable('templates')
      .set({ ...next, updated_at: now })
      .where('id', '=', templateId)
      .execute();
    return next;
  });
}

function apply(stored: string, changes: Readonly<Record<string, readonly string[]>>): string {
  let acl: Record<string, readonly string[]> = {};
  try {
    const parsed: unknown = JSON.parse(stored);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) acl = parsed as Record<string, readonly string[]>;
  } catch {
    // A damaged column is rewritten from the changes alone.
  }
  for (const [id, actions] of Object.entries(changes)) {
    if (actions.length === 0) delete acl[id];
    else acl[id] = actions;
  }
  return JSON.stringify(acl);
}
