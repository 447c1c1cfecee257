import type { Kysely } from 'kysely';
import type { AuditChange } from '../audit/audit-request.js';
import type { Database } from '../schema.js';
import { StoreFamily } from './store-family.js';
import { withConflicts } from '../db-errors.js';
import { allowedRows } from '../authz-filter.js';
import { listFilter, orgMemberObject, orgScoped } from '../../rbac/index.js';
import { NotFoundError } from '../../lib/errors.js';
import * as members from '../queries/members.js';

/** A membership with the fields of its user that member listings show. */
export type MemberWithUser = members.MemberRow & {
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly avatar_url: string;
  readonly rbac_roles: string;
};

/** Organization memberships and their roles. */
export class MemberStore extends StoreFamily {
  /** Members of an organization the subject may read, with their users, by username; and the total. */
  async list(
    organizationId: string,
    page: { readonly limit: number; readonly offset: number },
  ): Promise<{ rows: MemberWithUser[]; count: number }> {
    const filter = listFilter(this.subject, 'read', 'organization_member');
    const base = this.db
      .selectFrom('organization_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .where('m.organization_id', '=', organizationId)
      .where('u.deleted', '=', 0)
      .where((eb) => allowedRows(eb, filter, { org: 'm.organization_id', owner: 'm.user_id' }));
    const countRow = await base.select((eb) => eb.fn.countAll().as('count')).executeTakeFirst();
    // Users first, in username order (SQLite keeps a CROSS JOIN's order; PostgreSQL plans it as an
    // inner join), so a page reads its rows from the username index instead of sorting every member.
    let query = this.db
      .selectFrom('users as u')
      .crossJoin('organization_members as m')
      .whereRef('m.user_id', '=', 'u.id')
      .where('m.organization_id', '=', organizationId)
      .where('u.deleted', '=', 0)
      .where((eb) => allowedRows(eb, filter, { org: 'm.organization_id', owner: 'm.user_id' }))
      .selectAll('m')
      .select(['u.username', 'u.name', 'u.email', 'u.avatar_url', 'u.rbac_roles'])
      .orderBy('u.username');
    if (page.limit > 0) query = query.limit(page.limit);
    if (page.offset > 0) query = query.$if(page.limit <= 0 && this.store.dialect === 'sqlite', (qb) => qb.limit(-1)).offset(page.offset);
    return { rows: await query.execute(), count: Number(countRow?.count ?? 0) };
  }

  /** Adds a user to an organization with no extra roles. */
  async add(organizationId: string, userId: string): Promise<members.MemberRow> {
    this.require('create', orgMemberObject(userId, organizationId));
    const now = this.store.nowIso();
    let username = '';
    const row = await this.audited(
      async (trx) => {
        const added = await withConflicts(() =>
          members.insertMember(trx, {
            user_id: userId,
            organization_id: organizationId,
            roles: '[]',
            created_at: now,
            updated_at: now,
          }),
        );
        username = await usernameOf(trx, userId);
        return added;
      },
      (added) => memberChange('create', username, undefined, added),
    );
    await this.store.invalidateSessions({ userId });
    return row;
  }

  /** Removes a user from an organization. */
  async remove(organizationId: string, userId: string): Promise<void> {
    this.require('delete', orgMemberObject(userId, organizationId));
    await this.requireOutranks(userId, organizationId);
    let username = '';
    await this.audited(
      async (trx) => {
        const before = await membership(trx, organizationId, userId);
        await trx.deleteFrom('organization_members').where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
        username = await usernameOf(trx, userId);
        return before;
      },
      (before) => memberChange('delete', username, before, undefined),
    );
    await this.store.invalidateSessions({ userId });
  }

  /** Replaces a member's stored organization roles; needs `assign`/`unassign` on the organization's role assignments as used. */
  async setRoles(
    organizationId: string,
    userId: string,
    roles: readonly string[],
    changed: { readonly added: boolean; readonly removed: boolean },
  ): Promise<members.MemberRow> {
    if (changed.added) this.require('assign', orgScoped('assign_org_role', organizationId));
    if (changed.removed) this.require('unassign', orgScoped('assign_org_role', organizationId));
    await this.requireOutranks(userId, organizationId);
    const now = this.store.nowIso();
    let username = '';
    let before: members.MemberRow | undefined;
    await this.audited(
      async (trx) => {
        before = await membership(trx, organizationId, userId);
        await trx
          .updateTable('organization_members')
          .set({ roles: JSON.stringify(roles), updated_at: now })
          .where('organization_id', '=', organizationId)
          .where('user_id', '=', userId)
          .execute();
        username = await usernameOf(trx, userId);
        return { ...before, roles: JSON.stringify(roles), updated_at: now };
      },
      (after) => memberChange('write', username, before, after),
    );
    await this.store.invalidateSessions({ userId });
    const row = await this.get(organizationId, userId);
    return row;
  }

  /** One membership the subject may read. */
  async get(organizationId: string, userId: string): Promise<members.MemberRow> {
    const row = await this.db
      .selectFrom('organization_members')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError('member');
    this.require('read', orgMemberObject(userId, organizationId));
    return row;
  }
}

/** A membership as it is, read on the change's transaction; NotFoundError when there is none. */
async function membership(trx: Kysely<Database>, organizationId: string, userId: string): Promise<members.MemberRow> {
  const row = await trx
    .selectFrom('organization_members')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError('member');
  return row;
}

/** The member's username, which their audit entries are named by. */
async function usernameOf(trx: Kysely<Database>, userId: string): Promise<string> {
  return (await trx.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst())?.username ?? '';
}

/** A membership's audit entry, named by the member's username as the reference does. */
function memberChange(
  action: string,
  username: string,
  before: members.MemberRow | undefined,
  after: members.MemberRow | undefined,
): AuditChange {
  const row = after ?? before;
  return {
    resourceType: 'organization_member',
    action,
    resourceId: row?.user_id ?? '',
    resourceTarget: username,
    organizationId: row?.organization_id ?? '',
    old: before && { ...before, username },
    new: after && { ...after, username },
  };
}
