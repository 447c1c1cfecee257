import type { AuditChange } from '../audit/audit-request.js';
import { StoreFamily } from './store-family.js';
import { withConflicts } from '../db-errors.js';
import { allowedRows } from '../authz-filter.js';
import { groupRbac } from '../rbac-objects.js';
import { listFilter, orgScoped, scopeAllows } from '../../rbac/index.js';
import { NotFoundError } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import * as groups from '../queries/groups.js';

/** Which groups a listing asks for; every filter given must hold. */
export interface GroupListFilter {
  readonly organizationId?: string | undefined;
  /** Groups this user belongs to, the "Everyone" groups of their organizations included. */
  readonly hasMemberId?: string | undefined;
  readonly groupIds?: readonly string[] | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** The changes one edit of a group makes: its fields, and the users it adds and removes. */
export interface GroupChanges {
  readonly fields: Partial<Pick<groups.GroupRow, 'name' | 'display_name' | 'avatar_url' | 'quota_allowance'>>;
  readonly addUserIds: readonly string[];
  readonly removeUserIds: readonly string[];
}

/** The members of one group the subject may see, and how many it has in all. */
export interface GroupMembers {
  readonly members: groups.GroupMemberUser[];
  readonly total: number;
}

const MEMBER_FIELDS = [
  'u.id',
  'u.username',
  'u.name',
  'u.email',
  'u.avatar_url',
  'u.created_at',
  'u.updated_at',
  'u.last_seen_at',
  'u.status',
  'u.login_type',
  'u.theme_preference',
] as const;

/** Groups of organizations and their members. */
export class GroupStore extends StoreFamily {
  /** A group by id; a group the subject may not read is missing to them. */
  async get(id: string): Promise<groups.GroupWithOrganization> {
    const row = isUuid(id) ? await groups.selectGroupsWithOrganization(this.db).where('g.id', '=', id).executeTakeFirst() : undefined;
    if (!row) throw new NotFoundError('group');
    this.require('read', groupRbac(row));
    return row;
  }

  /** A group of an organization by its name. */
  async getByName(organizationId: string, name: string): Promise<groups.GroupWithOrganization> {
    const row = await groups
      .selectGroupsWithOrganization(this.db)
      .where('g.organization_id', '=', organizationId)
      .where('g.name', '=', name)
      .executeTakeFirst();
    if (!row) throw new NotFoundError('group');
    this.require('read', groupRbac(row));
    return row;
  }

  /** The groups the subject may read that pass the filter, by organization then name. */
  async list(filter: GroupListFilter): Promise<groups.GroupWithOrganization[]> {
    const byRole = listFilter(this.subject, 'read', 'group');
    // Members read their own groups (the group ACL that groupRbac gives each group), and every
    // member of an organization its "Everyone" group, if the session's scope lets them read groups.
    const memberOrgIds = scopeAllows(this.subject.scope, 'read', 'group')
      ? [...new Set(this.subject.roles.map((role) => role.organization_id).filter((orgId) => orgId !== ''))]
      : [];
    const ownGroups = [...this.subject.groups];
    let query = groups.selectGroupsWithOrganization(this.db).where((eb) => {
      const alternatives = [allowedRows(eb, byRole, { org: 'g.organization_id', owner: null })];
      if (memberOrgIds.length > 0) {
        const everyone = eb('g.id', '=', eb.ref('g.organization_id'));
        const own = ownGroups.length > 0 ? eb.or([everyone, eb('g.id', 'in', ownGroups)]) : everyone;
        alternatives.push(eb.and([eb('g.organization_id', 'in', memberOrgIds), own]));
      }
      return eb.or(alternatives);
    });
    if (filter.organizationId !== undefined) query = query.where('g.organization_id', '=', filter.organizationId);
    if (filter.groupIds !== undefined && filter.groupIds.length > 0) query = query.where('g.id', 'in', [...filter.groupIds]);
    const memberId = filter.hasMemberId;
    if (memberId !== undefined) {
      query = query.where((eb) =>
        eb.or([
          // A stored membership counts while the user is still in the group's organization.
          eb.exists(
            eb
              .selectFrom('group_members as gm')
              .innerJoin('organization_members as om', 'om.user_id', 'gm.user_id')
              .select('gm.user_id')
              .whereRef('gm.group_id', '=', 'g.id')
              .whereRef('om.organization_id', '=', 'g.organization_id')
              .where('gm.user_id', '=', memberId),
          ),
          eb.and([
            eb('g.id', '=', eb.ref('g.organization_id')),
            eb.exists(
              eb
                .selectFrom('organization_members as om')
                .select('om.user_id')
                .whereRef('om.organization_id', '=', 'g.organization_id')
                .where('om.user_id', '=', memberId),
            ),
          ]),
        ]),
      );
    }
    query = query.orderBy('o.name').orderBy('g.name').orderBy('g.id');
    if (filter.limit > 0) query = query.limit(filter.limit);
    if (filter.offset > 0) {
      query = query.$if(filter.limit <= 0 && this.store.dialect === 'sqlite', (qb) => qb.limit(-1)).offset(filter.offset);
    }
    return query.execute();
  }

  /**
   * The members of each group (which the caller read through this store), in username order, in a
   * fixed number of queries whatever the number of groups. A member shows only to those who may
   * read that membership; the total counts every member. An "Everyone" group's members are its
   * organization's.
   */
  async members(rows: readonly groups.GroupRow[]): Promise<Map<string, GroupMembers>> {
    const result = new Map<string, GroupMembers>(rows.map((row) => [row.id, { members: [], total: 0 }]));
    for (const row of rows) this.require('read', groupRbac(row));
    const everyoneOrgIds = rows.filter((row) => row.id === row.organization_id).map((row) => row.id);
    const storedIds = rows.filter((row) => row.id !== row.organization_id).map((row) => row.id);
    const visible = listFilter(this.subject, 'read', 'group_member');
    const collect = (groupId: string, member?: groups.GroupMemberUser, count?: number) => {
      const entry = result.get(groupId);
      if (!entry) return;
      if (member) entry.members.push(member);
      if (count !== undefined) result.set(groupId, { members: entry.members, total: count });
    };
    if (everyoneOrgIds.length > 0) {
      const base = this.db
        .selectFrom('organization_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .where('m.organization_id', 'in', everyoneOrgIds)
        .where('u.deleted', '=', 0);
      const [listed, counts] = await Promise.all([
        base
          .where((eb) => allowedRows(eb, visible, { org: 'm.organization_id', owner: 'm.user_id' }))
          .select('m.organization_id as group_id')
          .select(MEMBER_FIELDS)
          .orderBy('u.username')
          .execute(),
        base
          .select(['m.organization_id as group_id', (eb) => eb.fn.countAll().as('count')])
          .groupBy('m.organization_id')
          .execute(),
      ]);
      for (const member of listed) collect(member.group_id, member);
      for (const count of counts) collect(count.group_id, undefined, Number(count.count));
    }
    if (storedIds.length > 0) {
      const base = this.db
        .selectFrom('group_members as gm')
        .innerJoin('groups as g', 'g.id', 'gm.group_id')
        .innerJoin('users as u', 'u.id', 'gm.user_id')
        // A membership outlives nothing: once the user leaves the organization it no longer counts.
        .innerJoin('organization_members as m', (join) =>
          join.onRef('m.user_id', '=', 'gm.user_id').onRef('m.organization_id', '=', 'g.organization_id'),
        )
        .where('gm.group_id', 'in', storedIds)
        .where('u.deleted', '=', 0);
      const [listed, counts] = await Promise.all([
        base
          .where((eb) => allowedRows(eb, visible, { org: 'g.organization_id', owner: 'gm.user_id' }))
          .select('gm.group_id')
          .select(MEMBER_FIELDS)
          .orderBy('u.username')
          .execute(),
        base
          .select(['gm.group_id', (eb) => eb.fn.countAll().as('count')])
          .groupBy('gm.group_id')
          .execute(),
      ]);
      for (const member of listed) collect(member.group_id, member);
      for (const count of counts) collect(count.group_id, undefined, Number(count.count));
    }
    return result;
  }

  /** Which of `userIds` belong to the group's organization: only they may join it. */
  async organizationMembersAmong(group: groups.GroupRow, userIds: readonly string[]): Promise<Set<string>> {
    this.require('read', groupRbac(group));
    return groups.organizationMemberIds(this.db, group.organization_id, userIds);
  }

  /** Creates a group; a name the organization already has is a ConflictError. */
  async create(row: groups.GroupRow): Promise<groups.GroupWithOrganization> {
    this.require('create', orgScoped('group', row.organization_id));
    await this.audited(
      (trx) => withConflicts(() => groups.insertGroup(trx, row)),
      (created) => groupChange('create', undefined, { ...created, members: [] }),
    );
    return this.get(row.id);
  }

  /**
   * Changes a group's fields and members in one transaction, and drops the sessions of the users
   * whose groups changed, so their next request is decided with the new membership.
   */
  async update(id: string, changes: GroupChanges): Promise<groups.GroupWithOrganization> {
    const current = await this.get(id);
    this.require('update', groupRbac(current));
    await withConflicts(() =>
      this.audited(
        async (trx) => {
          const before: AuditedGroup = { ...groupFields(current), members: await groups.storedMemberIds(trx, current.id) };
          if (Object.keys(changes.fields).length > 0)
            await trx.updateTable('groups').set(changes.fields).where('id', '=', current.id).execute();
          if (changes.addUserIds.length > 0) {
            const present = new Set(
              (await trx.selectFrom('group_members').select('user_id').where('group_id', '=', current.id).execute()).map((r) => r.user_id),
            );
            const added = [...new Set(changes.addUserIds)].filter((userId) => !present.has(userId));
            if (added.length > 0) {
              await trx
                .insertInto('group_members')
                .values(added.map((userId) => ({ group_id: current.id, user_id: userId })))
                .execute();
            }
          }
          if (changes.removeUserIds.length > 0) {
            await trx
              .deleteFrom('group_members')
              .where('group_id', '=', current.id)
              .where('user_id', 'in', [...changes.removeUserIds])
              .execute();
          }
          const after: AuditedGroup = { ...before, ...changes.fields, members: await groups.storedMemberIds(trx, current.id) };
          return { before, after };
        },
        ({ before, after }) => groupChange('write', before, after),
      ),
    );
    for (const userId of new Set([...changes.addUserIds, ...changes.removeUserIds])) await this.store.invalidateSessions({ userId });
    return this.get(current.id);
  }

  /** Deletes a group; its members' sessions are dropped, as they leave it. */
  async delete(id: string): Promise<void> {
    const current = await this.get(id);
    this.require('delete', groupRbac(current));
    const memberIds = await this.audited(
      async (trx) => {
        const ids = await groups.storedMemberIds(trx, current.id);
        await trx.deleteFrom('groups').where('id', '=', current.id).execute();
        return ids;
      },
      (ids) => groupChange('delete', { ...groupFields(current), members: ids }, undefined),
    );
    for (const userId of memberIds) await this.store.invalidateSessions({ userId });
  }
}

/** A group as its audit entries show it: its own fields and its stored members' ids, sorted. */
type AuditedGroup = groups.GroupRow & { readonly members: readonly string[] };

/** A group's own columns, without what a listing joins to them. */
function groupFields(row: groups.GroupWithOrganization): groups.GroupRow {
  const { organization_name: _name, organization_display_name: _displayName, ...own } = row;
  return own;
}

/** A group's audit entry. */
function groupChange(action: string, before: AuditedGroup | undefined, after: AuditedGroup | undefined): AuditChange {
  const row = after ?? before;
  const sorted = (group: AuditedGroup | undefined) => group && { ...group, members: [...group.members].sort() };
  return {
    resourceType: 'group',
    action,
    resourceId: row?.id ?? '',
    resourceTarget: row?.name ?? '',
    resourceIcon: row?.avatar_url ?? '',
    organizationId: row?.organization_id ?? '',
    old: sorted(before),
    new: sorted(after),
  };
}
