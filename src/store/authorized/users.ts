import type { Kysely } from 'kysely';
import type { AuditChange } from '../audit/audit-request.js';
import type { Database } from '../schema.js';
import { StoreFamily } from './store-family.js';
import { withConflicts } from '../db-errors.js';
import { allowedRows } from '../authz-filter.js';
import { listFilter, orgMemberObject, siteObject, userObject } from '../../rbac/index.js';
import { isUuid } from '../../lib/random.js';
import { NotFoundError } from '../../lib/errors.js';
import { sql } from 'kysely';
import * as siteConfig from '../queries/site-config.js';
import * as gitSshKeys from '../queries/git-ssh-keys.js';
import * as members from '../queries/members.js';
import * as users from '../queries/users.js';

/** The site setting that records the first user; claiming it is what makes a user the first. */
const FIRST_USER_KEY = 'first_user_id';

/** Users: their rows, site roles, first user, dormancy and git SSH keys. */
export class UserStore extends StoreFamily {
  /** A user by id, username or `me`. */
  async get(idOrName: string, authenticated?: users.UserRow): Promise<users.UserRow> {
    const db = this.db;
    const key = idOrName === 'me' ? this.subject.id : idOrName;
    // The caller's own row, as authentication just read it, needs no second read.
    const known = authenticated?.id === key ? authenticated : undefined;
    const row = known ?? (isUuid(key) ? await users.getUserById(db, key) : await users.getUserByUsername(db, key));
    if (!row) throw new NotFoundError('user');
    this.require('read', userObject(row.id));
    return row;
  }

  /**
   * Live users the subject may read, filtered in SQL, newest last, with the total that matched
   * before paging. `role` matches a stored site role; the implicit `member` matches everyone.
   */
  async list(query: {
    readonly search: users.UserFilter;
    readonly limit: number;
    readonly offset: number;
    readonly afterId: string | undefined;
  }): Promise<{ rows: users.UserRow[]; count: number }> {
    const filter = listFilter(this.subject, 'read', 'user');
    const { search } = query;
    let base = this.db
      .selectFrom('users')
      .where('deleted', '=', 0)
      .where((eb) => allowedRows(eb, filter, { org: null, owner: 'id' }));
    if (search.status) base = base.where('status', '=', search.status);
    if (search.loginType) base = base.where('login_type', '=', search.loginType);
    if (search.role && search.role !== 'member') base = base.where('rbac_roles', 'like', `%"${search.role.replaceAll('"', '')}"%`);
    if (search.text) {
      const pattern = `%${search.text.toLowerCase()}%`;
      base = base.where((eb) => eb.or([eb(sql`lower(username)`, 'like', pattern), eb(sql`lower(email)`, 'like', pattern)]));
    }
    const countRow = await base.select((eb) => eb.fn.countAll().as('count')).executeTakeFirst();
    let page = base.selectAll().orderBy('created_at').orderBy('id');
    if (query.afterId) {
      const after = await users.getUserById(this.db, query.afterId);
      if (after)
        page = page.where((eb) =>
          eb.or([eb('created_at', '>', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)])]),
        );
    }
    if (query.limit > 0) page = page.limit(query.limit);
    // SQLite accepts OFFSET only after a LIMIT; -1 there means no limit.
    if (query.offset > 0) page = page.$if(query.limit <= 0 && this.store.dialect === 'sqlite', (qb) => qb.limit(-1)).offset(query.offset);
    return { rows: await page.execute(), count: Number(countRow?.count ?? 0) };
  }

  /** Creates a user with memberships; the caller must be able to create users and grant the memberships. */
  async insert(row: users.UserRow, organizationIds: readonly string[]): Promise<users.UserRow> {
    this.require('create', userObject(row.id));
    for (const orgId of organizationIds) this.require('create', orgMemberObject(row.id, orgId));
    return this.audited(
      async (trx) => {
        await withConflicts(() => users.insertUser(trx, row));
        for (const organization_id of organizationIds) {
          await members.insertMember(trx, {
            user_id: row.id,
            organization_id,
            roles: '[]',
            created_at: row.created_at,
            updated_at: row.created_at,
          });
        }
        return row;
      },
      (created) => userChange('create', undefined, created),
    );
  }

  /**
   * Changes a user's row. `kind` says which permission the change needs: `personal` fields
   * (profile, password) need `update_personal`, everything else `update`. Sessions of the user are
   * dropped from the cache, so a suspension takes effect on the next request.
   */
  async update(userId: string, kind: 'personal' | 'admin', changes: Partial<Omit<users.UserRow, 'id'>>): Promise<users.UserRow> {
    const current = await this.get(userId);
    this.require(kind === 'personal' ? 'update_personal' : 'update', userObject(current.id));
    await this.requireOutranks(current);
    const updated = await this.audited(
      async (trx) => {
        await withConflicts(() => users.updateUser(trx, current.id, { ...changes, updated_at: this.store.nowIso() }));
        return readBack(trx, current);
      },
      (after) => userChange('write', current, after),
    );
    await this.store.invalidateSessions({ userId: current.id });
    return updated;
  }

  /** Replaces a user's stored site roles; needs `assign` and `unassign` on site role assignments as used. */
  async setSiteRoles(
    userId: string,
    roles: readonly string[],
    changed: { readonly added: boolean; readonly removed: boolean },
  ): Promise<users.UserRow> {
    const current = await this.get(userId);
    if (changed.added) this.require('assign', siteObject('assign_role'));
    if (changed.removed) this.require('unassign', siteObject('assign_role'));
    // Even an unchanged list: whoever may not act on the user may not touch their roles at all.
    await this.requireOutranks(current);
    const updated = await this.audited(
      async (trx) => {
        await users.updateUser(trx, current.id, { rbac_roles: JSON.stringify(roles), updated_at: this.store.nowIso() });
        return readBack(trx, current);
      },
      (after) => userChange('write', current, after),
    );
    await this.store.invalidateSessions({ userId: current.id });
    return updated;
  }

  /** Soft-deletes a user and ends all their sessions. */
  async delete(userId: string): Promise<void> {
    const current = await this.get(userId);
    this.require('delete', userObject(current.id));
    await this.requireOutranks(current);
    await this.audited(
      async (trx) => {
        await users.updateUser(trx, current.id, { deleted: 1, updated_at: this.store.nowIso() });
        await trx.deleteFrom('api_keys').where('user_id', '=', current.id).execute();
      },
      () => userChange('delete', current, undefined),
    );
    await this.store.invalidateSessions({ userId: current.id });
  }

  /** The ids of the organizations a readable user belongs to. */
  async organizationIds(userId: string): Promise<string[]> {
    return (await this.organizationIdsOf([userId])).get(userId) ?? [];
  }

  /** The organization ids of several readable users, in one query (for user lists). */
  async organizationIdsOf(userIds: readonly string[]): Promise<Map<string, string[]>> {
    for (const id of userIds) this.require('read', userObject(id));
    return members.organizationIdsOfUsers(this.db, userIds);
  }

  /** A live user by email, case-insensitively (sign-in and password reset). */
  async getByEmail(email: string): Promise<users.UserRow> {
    const row = await users.getUserByEmail(this.db, email);
    if (!row) throw new NotFoundError('user');
    this.require('read', userObject(row.id));
    return row;
  }

  /**
   * Creates the first user, claiming the site setting that records them in the same transaction.
   * False when a first user exists already. Needs to create users and memberships, to assign site
   * roles (the row names its own) and to write site settings.
   */
  async insertFirst(row: users.UserRow, organizationId: string): Promise<boolean> {
    this.require('create', siteObject('system'));
    this.require('create', userObject(row.id));
    this.require('assign', siteObject('assign_role'));
    this.require('create', orgMemberObject(row.id, organizationId));
    return this.audited(
      (trx) => users.insertFirstUser(trx, row, organizationId, FIRST_USER_KEY),
      // Nobody is signed in yet: the first user made themselves.
      (created) => (created ? { ...userChange('create', undefined, row), userId: row.id } : undefined),
    );
  }

  /**
   * Creates a site administrator with the site roles its row names and memberships of
   * `organizationIds`, and closes the first-user sign-up when it is still open. Needs to create
   * users and memberships, to assign site roles and to write site settings.
   */
  async insertSiteAdmin(row: users.UserRow, organizationIds: readonly string[]): Promise<users.UserRow> {
    this.require('create', siteObject('system'));
    this.require('create', userObject(row.id));
    this.require('assign', siteObject('assign_role'));
    for (const orgId of organizationIds) this.require('create', orgMemberObject(row.id, orgId));
    return this.audited(
      (trx) => users.insertSiteAdmin(trx, row, organizationIds, FIRST_USER_KEY),
      (created) => userChange('create', undefined, created),
    );
  }

  /** Whether the first user has been created; needs read on the site settings. */
  async hasFirst(): Promise<boolean> {
    this.require('read', siteObject('system'));
    return (await siteConfig.getSiteValue(this.db, FIRST_USER_KEY)) !== undefined;
  }

  /**
   * Records that a user was seen: `last_seen_at`, and `active` again for a dormant one. Needs
   * `update` on the user. Their cached sessions stay: the caller caches the one in use anew.
   */
  async recordSeen(userId: string, changes: { readonly status?: 'active'; readonly last_seen_at?: string }): Promise<void> {
    this.require('update', userObject(userId));
    await users.updateUser(this.db, userId, changes.status ? { ...changes, updated_at: this.store.nowIso() } : changes);
  }

  /** Marks active users not seen since `cutoff` dormant and returns how many; needs `update` on every user. */
  async markInactiveDormant(cutoff: Date): Promise<number> {
    this.require('update', siteObject('user'));
    const changed = await this.auditedEach(
      (trx) => users.markUsersDormant(trx, cutoff.toISOString(), this.store.nowIso()),
      (rows) =>
        rows.map((row) => ({
          resourceType: 'user',
          action: 'write',
          resourceId: row.id,
          resourceTarget: row.username,
          resourceIcon: row.avatar_url,
          old: { status: 'active' },
          new: { status: 'dormant' },
          additionalFields: { automatic: 'true', reason: 'dormancy' },
        })),
    );
    // Cached sessions carry the old status; drop them so the next request sees the new one.
    if (changed.length > 0) await this.store.invalidateSessions('*');
    return changed.length;
  }

  /**
   * A user's git SSH key, made on first use; needs `read_personal` on the user. The row carries the
   * private key: routes show users only the public half.
   */
  async gitSshKey(userId: string): Promise<gitSshKeys.GitSshKeyRow> {
    const user = await this.get(userId);
    this.require('read_personal', userObject(user.id));
    return gitSshKeys.ensureGitSshKey(this.db, user.id, this.store.nowIso());
  }

  /** Replaces a user's git SSH key with a new pair; needs `update_personal` on the user. */
  async regenerateGitSshKey(userId: string): Promise<gitSshKeys.GitSshKeyRow> {
    const user = await this.get(userId);
    this.require('update_personal', userObject(user.id));
    await this.requireOutranks(user);
    let before: gitSshKeys.GitSshKeyRow | undefined;
    return this.audited(
      async (trx) => {
        before = await gitSshKeys.ensureGitSshKey(trx, user.id, this.store.nowIso());
        return gitSshKeys.regenerateGitSshKey(trx, user.id, this.store.nowIso());
      },
      (after) => ({
        resourceType: 'git_ssh_key',
        action: 'write',
        resourceId: user.id,
        resourceTarget: user.username,
        old: before,
        new: after,
      }),
    );
  }
}

/** A user's row as a change left it, read on the change's transaction. */
async function readBack(trx: Kysely<Database>, current: users.UserRow): Promise<users.UserRow> {
  return (await users.getUserById(trx, current.id)) ?? current;
}

/** A user's audit entry. A user belongs to no one organization: the entry names none. */
function userChange(action: string, before: users.UserRow | undefined, after: users.UserRow | undefined): AuditChange {
  const row = after ?? before;
  return {
    resourceType: 'user',
    action,
    resourceId: row?.id ?? '',
    resourceTarget: row?.username ?? '',
    resourceIcon: row?.avatar_url ?? '',
    old: before,
    new: after,
  };
}
