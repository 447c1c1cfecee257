import { sql, type Kysely } from 'kysely';
import { ConflictError, NotAuthorizedError, NotFoundError } from '../lib/errors.js';
import { OutrankedError } from '../lib/outranked-error.js';
import { isUuid } from '../lib/random.js';
import {
  apiKeyObject,
  authorize,
  fileObject,
  listFilter,
  organizationObject,
  orgMemberObject,
  orgScoped,
  rolesBeyondReach,
  siteObject,
  userObject,
  type Action,
  type RbacObject,
  type ResourceType,
  type Role,
  type Subject,
} from '../rbac/index.js';
import { aclAllowedRows } from './acl-filter.js';
import { allowedRows } from './authz-filter.js';
import { withConflicts } from './db-errors.js';
import { loadCustomRoles, loadUserSubject, type SubjectOptions } from './subjects.js';
import type { CachedSession } from './session-cache.js';
import { deploymentStatsInputs, type DeploymentStatsInputs } from './queries/deployment-stats.js';
import * as siteConfig from './queries/site-config.js';
import * as healthChecks from './queries/health-checks.js';
import * as metricCounts from './queries/metric-counts.js';
import * as apiKeys from './queries/api-keys.js';
import * as files from './queries/files.js';
import * as gitSshKeys from './queries/git-ssh-keys.js';
import * as insights from './queries/insights.js';
import * as licenses from './queries/licenses.js';
import * as jobs from './queries/provisioner-jobs.js';
import * as jobCompletion from './queries/job-completion.js';
import * as provisionerDaemons from './queries/provisioner-daemons.js';
import * as provisionerKeys from './queries/provisioner-keys.js';
import * as templates from './queries/templates.js';
import * as workspaces from './queries/workspaces.js';
import * as workspaceLists from './queries/workspace-lists.js';
import * as agents from './queries/workspace-agents.js';
import * as appStatuses from './queries/workspace-app-statuses.js';
import * as portShares from './queries/workspace-port-shares.js';
import { parseJson, parseStringArray } from './json-column.js';
import * as members from './queries/members.js';
import * as organizations from './queries/organizations.js';
import * as users from './queries/users.js';
import * as externalSignIn from './queries/external-sign-in.js';
import * as signInFailures from './queries/sign-in-failures.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';
import { templateRbac, workspaceRbac } from './rbac-objects.js';

export { templateRbac, workspaceRbac };

/** A template version with its import job. */
export interface VersionWithJob {
  readonly version: templates.TemplateVersionRow;
  readonly job: jobs.ProvisionerJobRow;
}

/** Reads the logs of one job for a stream that was authorized when it opened. */
export interface JobLogReader {
  /** Log lines with ids above `after`, in order. */
  logsAfter(after: number): Promise<jobs.ProvisionerJobLogRow[]>;
  /** Whether the job has finished (or is gone). */
  finished(): Promise<boolean>;
}

/** A membership with the fields of its user that member listings show. */
export type MemberWithUser = members.MemberRow & {
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly avatar_url: string;
  readonly rbac_roles: string;
};

/** The store's decision that a subject may create a workspace for an owner from a template; see `grantWorkspaceCreation`. */
export interface WorkspaceCreationGrant {
  readonly ownerId: string;
  readonly templateId: string;
  readonly organizationId: string;
}

/** The store's decision that a subject may queue a build of a workspace; see `grantBuild`. */
export interface BuildGrant {
  readonly transition: string;
  /** The workspace as it was when the decision was made. */
  readonly workspace: workspaces.WorkspaceRow;
}

/** A named token with its owner's username, as token listings show it. */
export type TokenWithOwner = apiKeys.ApiKeyRow & { readonly username: string };

/** The site setting that records the first user; claiming it is what makes a user the first. */
const FIRST_USER_KEY = 'first_user_id';

/**
 * The store as one subject sees it. Every method that reads or writes a row checks the row's RBAC
 * object first (or filters the list in SQL), so route handlers never decide who may see what.
 * A refused read throws NotAuthorizedError, which the API answers exactly like NotFoundError.
 */
export class AuthorizedStore {
  readonly #store: Store;
  /** The store's database, through the urgent lane for the view `urgent()` gives. */
  readonly #db: Kysely<Database>;
  readonly subject: Subject;
  /** Grants this store made: a write that takes one checks it came from here, and decides nothing again. */
  #grantsMade: WeakSet<object> | undefined;
  /**
   * Cached sessions this store was allowed to read. A cached session never changes (a changed key
   * or user is a new one) and the subject is fixed, so the decision holds: a long-lived store (the
   * authenticator's) decides it once per session rather than on every request.
   */
  #sessionsShown: WeakSet<CachedSession> | undefined;

  // Both sets are made on first use: most stores live for one request and never need them.
  get #grants(): WeakSet<object> {
    return (this.#grantsMade ??= new WeakSet());
  }

  constructor(store: Store, subject: Subject, db: Kysely<Database> = store.db) {
    this.#store = store;
    this.#db = db;
    this.subject = subject;
  }

  /**
   * The same subject's store, for work that finishes what is already under way (a job's
   * completion, a watch re-read): on PostgreSQL its statements get the next free connection before
   * others waiting for one. Grants made by one view are not the other's.
   */
  urgent(): AuthorizedStore {
    return new AuthorizedStore(this.#store, this.subject, this.#store.urgentDb);
  }

  /** Whether the subject may perform `action` on `object`; for checks a route reports itself. */
  can(action: Action, object: RbacObject): boolean {
    return authorize(this.subject, action, object);
  }

  /** Throws NotAuthorizedError unless the subject may perform `action` on a site-wide resource type. */
  authorizeSite(action: Action, type: ResourceType): void {
    this.#require(action, siteObject(type));
  }

  // Users

  /** A user by id, username or `me`. */
  async getUser(idOrName: string, authenticated?: users.UserRow): Promise<users.UserRow> {
    const db = this.#db;
    const key = idOrName === 'me' ? this.subject.id : idOrName;
    // The caller's own row, as authentication just read it, needs no second read.
    const known = authenticated?.id === key ? authenticated : undefined;
    const row = known ?? (isUuid(key) ? await users.getUserById(db, key) : await users.getUserByUsername(db, key));
    if (!row) throw new NotFoundError('user');
    this.#require('read', userObject(row.id));
    return row;
  }

  /**
   * Live users the subject may read, filtered in SQL, newest last, with the total that matched
   * before paging. `role` matches a stored site role; the implicit `member` matches everyone.
   */
  async listUsers(query: {
    readonly search: users.UserFilter;
    readonly limit: number;
    readonly offset: number;
    readonly afterId: string | undefined;
  }): Promise<{ rows: users.UserRow[]; count: number }> {
    const filter = listFilter(this.subject, 'read', 'user');
    const { search } = query;
    let base = this.#db
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
      const after = await users.getUserById(this.#db, query.afterId);
      if (after)
        page = page.where((eb) =>
          eb.or([eb('created_at', '>', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)])]),
        );
    }
    if (query.limit > 0) page = page.limit(query.limit);
    // SQLite accepts OFFSET only after a LIMIT; -1 there means no limit.
    if (query.offset > 0) page = page.$if(query.limit <= 0 && this.#store.dialect === 'sqlite', (qb) => qb.limit(-1)).offset(query.offset);
    return { rows: await page.execute(), count: Number(countRow?.count ?? 0) };
  }

  /** Creates a user with memberships; the caller must be able to create users and grant the memberships. */
  async insertUser(row: users.UserRow, organizationIds: readonly string[]): Promise<users.UserRow> {
    this.#require('create', userObject(row.id));
    for (const orgId of organizationIds) this.#require('create', orgMemberObject(row.id, orgId));
    return this.#db.transaction().execute(async (trx) => {
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
    });
  }

  /**
   * Changes a user's row. `kind` says which permission the change needs: `personal` fields
   * (profile, password) need `update_personal`, everything else `update`. Sessions of the user are
   * dropped from the cache, so a suspension takes effect on the next request.
   */
  async updateUser(userId: string, kind: 'personal' | 'admin', changes: Partial<Omit<users.UserRow, 'id'>>): Promise<users.UserRow> {
    const current = await this.getUser(userId);
    this.#require(kind === 'personal' ? 'update_personal' : 'update', userObject(current.id));
    await this.requireOutranks(current);
    await withConflicts(() => users.updateUser(this.#db, current.id, { ...changes, updated_at: this.#store.nowIso() }));
    await this.#store.invalidateSessions({ userId: current.id });
    return this.getUser(current.id);
  }

  /** Replaces a user's stored site roles; needs `assign` and `unassign` on site role assignments as used. */
  async setSiteRoles(
    userId: string,
    roles: readonly string[],
    changed: { readonly added: boolean; readonly removed: boolean },
  ): Promise<users.UserRow> {
    const current = await this.getUser(userId);
    if (changed.added) this.#require('assign', siteObject('assign_role'));
    if (changed.removed) this.#require('unassign', siteObject('assign_role'));
    // Even an unchanged list: whoever may not act on the user may not touch their roles at all.
    await this.requireOutranks(current);
    await users.updateUser(this.#db, current.id, { rbac_roles: JSON.stringify(roles), updated_at: this.#store.nowIso() });
    await this.#store.invalidateSessions({ userId: current.id });
    return this.getUser(current.id);
  }

  /** Soft-deletes a user and ends all their sessions. */
  async deleteUser(userId: string): Promise<void> {
    const current = await this.getUser(userId);
    this.#require('delete', userObject(current.id));
    await this.requireOutranks(current);
    await this.#db.transaction().execute(async (trx) => {
      await users.updateUser(trx, current.id, { deleted: 1, updated_at: this.#store.nowIso() });
      await trx.deleteFrom('api_keys').where('user_id', '=', current.id).execute();
    });
    await this.#store.invalidateSessions({ userId: current.id });
  }

  /** Deletes every API key of a user, as a password change does. */
  async deleteAllApiKeys(userId: string): Promise<void> {
    const current = await this.getUser(userId);
    this.#require('update_personal', userObject(current.id));
    await this.requireOutranks(current);
    await this.#db.deleteFrom('api_keys').where('user_id', '=', current.id).execute();
    await this.#store.invalidateSessions({ userId: current.id });
  }

  /**
   * Throws OutrankedError unless the subject could assign every role the user holds: their site
   * roles, and with `organizationId` their roles in that organization. Whoever could change the
   * password, sign-in, keys or roles of a user above them could sign in as that user, so every
   * method here that changes a user, their keys or memberships, or makes a workspace that runs as
   * them asks this after its own permission check. Domain rules that look at the user ask it
   * first, so that no answer depending on the target (such as "new password cannot match old")
   * reaches a caller below them. Acting on oneself, and system work, are not ranked.
   */
  async requireOutranks(user: users.UserRow | string, organizationId?: string): Promise<void> {
    const userId = typeof user === 'string' ? user : user.id;
    if (userId === this.subject.id || this.subject.type === 'system') return;
    const row = typeof user === 'string' ? await users.getUserById(this.#db, user) : user;
    if (!row) throw new NotFoundError('user');
    const site = parseStringArray(row.rbac_roles);
    let beyond: string[];
    if (organizationId === undefined) {
      beyond = rolesBeyondReach(this.subject, { site });
    } else {
      const membership = await this.#db
        .selectFrom('organization_members')
        .select('roles')
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      beyond = rolesBeyondReach(this.subject, {
        site,
        organization: { id: organizationId, roles: parseStringArray(membership?.roles ?? '[]') },
      });
    }
    if (beyond.length > 0) throw new OutrankedError(beyond);
  }

  /** The ids of the organizations a readable user belongs to. */
  async getUserOrganizationIds(userId: string): Promise<string[]> {
    return (await this.getOrganizationIdsOfUsers([userId])).get(userId) ?? [];
  }

  /** The organization ids of several readable users, in one query (for user lists). */
  async getOrganizationIdsOfUsers(userIds: readonly string[]): Promise<Map<string, string[]>> {
    for (const id of userIds) this.#require('read', userObject(id));
    return members.organizationIdsOfUsers(this.#db, userIds);
  }

  /** A live user by email, case-insensitively (sign-in and password reset). */
  async getUserByEmail(email: string): Promise<users.UserRow> {
    const row = await users.getUserByEmail(this.#db, email);
    if (!row) throw new NotFoundError('user');
    this.#require('read', userObject(row.id));
    return row;
  }

  /**
   * Creates the first user, claiming the site setting that records them in the same transaction.
   * False when a first user exists already. Needs to create users and memberships, to assign site
   * roles (the row names its own) and to write site settings.
   */
  async insertFirstUser(row: users.UserRow, organizationId: string): Promise<boolean> {
    this.#require('create', siteObject('system'));
    this.#require('create', userObject(row.id));
    this.#require('assign', siteObject('assign_role'));
    this.#require('create', orgMemberObject(row.id, organizationId));
    return users.insertFirstUser(this.#db, row, organizationId, FIRST_USER_KEY);
  }

  /**
   * Creates a site administrator with the site roles its row names and memberships of
   * `organizationIds`, and closes the first-user sign-up when it is still open. Needs to create
   * users and memberships, to assign site roles and to write site settings.
   */
  async insertSiteAdmin(row: users.UserRow, organizationIds: readonly string[]): Promise<users.UserRow> {
    this.#require('create', siteObject('system'));
    this.#require('create', userObject(row.id));
    this.#require('assign', siteObject('assign_role'));
    for (const orgId of organizationIds) this.#require('create', orgMemberObject(row.id, orgId));
    return users.insertSiteAdmin(this.#db, row, organizationIds, FIRST_USER_KEY);
  }

  /** Whether the first user has been created; needs read on the site settings. */
  async hasFirstUser(): Promise<boolean> {
    this.#require('read', siteObject('system'));
    return (await siteConfig.getSiteValue(this.#db, FIRST_USER_KEY)) !== undefined;
  }

  /**
   * Records that a user was seen: `last_seen_at`, and `active` again for a dormant one. Needs
   * `update` on the user. Their cached sessions stay: the caller caches the one in use anew.
   */
  async recordUserSeen(userId: string, changes: { readonly status?: 'active'; readonly last_seen_at?: string }): Promise<void> {
    this.#require('update', userObject(userId));
    await users.updateUser(this.#db, userId, changes.status ? { ...changes, updated_at: this.#store.nowIso() } : changes);
  }

  /** Marks active users not seen since `cutoff` dormant and returns how many; needs `update` on every user. */
  async markInactiveUsersDormant(cutoff: Date): Promise<number> {
    this.#require('update', siteObject('user'));
    const changed = await users.markUsersDormant(this.#db, cutoff.toISOString(), this.#store.nowIso());
    // Cached sessions carry the old status; drop them so the next request sees the new one.
    if (changed > 0) await this.#store.invalidateSessions('*');
    return changed;
  }

  /**
   * Replaces a password with one set through a passcode, if the user still holds the passcode that
   * was checked, and ends all their keys. Needs `update_personal` on the user and `delete` on their keys.
   */
  async resetPasswordWithPasscode(user: users.UserRow, hashedPassword: string): Promise<boolean> {
    this.#require('update_personal', userObject(user.id));
    this.#require('delete', apiKeyObject(user.id));
    const reset = await users.resetPasswordWithPasscode(this.#db, {
      userId: user.id,
      hashedPasscode: user.hashed_one_time_passcode ?? '',
      hashedPassword,
      now: this.#store.nowIso(),
    });
    if (reset) await this.#store.invalidateSessions({ userId: user.id });
    return reset;
  }

  /**
   * Replaces the password hash that just verified with a new hash of the same password, made at
   * today's cost; false when the user's password changed meanwhile. Needs `update_personal` on the user.
   */
  async rehashPassword(user: users.UserRow, hashedPassword: string): Promise<boolean> {
    this.#require('update_personal', userObject(user.id));
    const changed = await users.rehashPassword(this.#db, { userId: user.id, checkedHash: user.hashed_password, hashedPassword });
    // Cached sessions carry the user's row; the next request reads the new one.
    if (changed) await this.#store.invalidateSessions({ userId: user.id });
    return changed;
  }

  // Pacing of failed sign-ins per account

  /**
   * Counts a sign-in attempt against an account before its secret is checked, or says until when
   * the account's attempts wait (see the query). Needs `update` on the site's system rows.
   */
  async claimSignInAttempt(
    account: string,
    pacing: { readonly backoffMs: (failures: number) => number; readonly forgetAfterMs: number },
  ): Promise<signInFailures.AttemptClaim> {
    this.#require('update', siteObject('system'));
    const now = this.#store.clock.now().getTime();
    return signInFailures.claimSignInAttempt(this.#db, account, {
      now: new Date(now).toISOString(),
      forgetBefore: new Date(now - pacing.forgetAfterMs).toISOString(),
      blockedUntil: (failures) => new Date(now + pacing.backoffMs(failures)).toISOString(),
    });
  }

  /** Forgets an account's failed sign-ins after a success; needs `update` on the site's system rows. */
  async forgetSignInFailures(account: string): Promise<void> {
    this.#require('update', siteObject('system'));
    await signInFailures.forgetSignInFailures(this.#db, account);
  }

  /**
   * Whether the user has a session or token last used from `ipAddress`: an address the user signs
   * in from, whose attempts are paced on their own (see sign-in-throttle.ts). Needs read on the
   * user's keys.
   */
  async usedKeyFrom(userId: string, ipAddress: string): Promise<boolean> {
    this.#require('read', apiKeyObject(userId));
    const row = await this.#db
      .selectFrom('api_keys')
      .select('id')
      .where('user_id', '=', userId)
      .where('ip_address', '=', ipAddress)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  // Sign-in through OIDC and GitHub

  /** The live user a provider account is linked to, or undefined; needs read on that user. */
  async getUserByLink(loginType: 'oidc' | 'github', linkedId: string): Promise<users.UserRow | undefined> {
    const row = await externalSignIn.getUserByLink(this.#db, loginType, linkedId);
    if (row) this.#require('read', userObject(row.id));
    return row;
  }

  /** Creates a user who signed up through a provider, with memberships and the link; needs create on both. */
  async insertLinkedUser(row: users.UserRow, organizationIds: readonly string[], linkedId: string): Promise<users.UserRow> {
    this.#require('create', userObject(row.id));
    for (const orgId of organizationIds) this.#require('create', orgMemberObject(row.id, orgId));
    return withConflicts(() => externalSignIn.insertLinkedUser(this.#db, row, organizationIds, linkedId));
  }

  /**
   * Links a user to a provider account. A conversion from password sign-in also switches the login
   * type and drops the password, and needs `update_personal`; false when the user no longer signs
   * in with a password (it was converted already). Needs `update` on the user.
   */
  async linkUser(
    user: users.UserRow,
    loginType: 'oidc' | 'github',
    linkedId: string,
    conversion: { readonly fromPassword: boolean },
  ): Promise<boolean> {
    this.#require('update', userObject(user.id));
    if (conversion.fromPassword) this.#require('update_personal', userObject(user.id));
    await this.requireOutranks(user);
    const now = this.#store.nowIso();
    const linked = await withConflicts(() =>
      externalSignIn.linkUser(
        this.#db,
        { user_id: user.id, login_type: loginType, linked_id: linkedId, created_at: now, updated_at: now },
        conversion,
      ),
    );
    if (linked && conversion.fromPassword) await this.#store.invalidateSessions({ userId: user.id });
    return linked;
  }

  /** Stores a sign-in under way (and forgets expired ones); needs create and delete on the site's system rows. */
  async insertSignInState(row: externalSignIn.SignInStateRow): Promise<void> {
    this.#require('create', siteObject('system'));
    this.#require('delete', siteObject('system'));
    await withConflicts(() => externalSignIn.insertSignInState(this.#db, row, this.#store.nowIso()));
  }

  /** Removes and returns a sign-in under way, so its state is spent once; needs delete on the site's system rows. */
  async takeSignInState(stateHash: string): Promise<externalSignIn.SignInStateRow | undefined> {
    this.#require('delete', siteObject('system'));
    return externalSignIn.takeSignInState(this.#db, stateHash);
  }

  // Git SSH keys

  /**
   * A user's git SSH key, made on first use; needs `read_personal` on the user. The row carries the
   * private key: routes show users only the public half.
   */
  async getGitSshKey(userId: string): Promise<gitSshKeys.GitSshKeyRow> {
    const user = await this.getUser(userId);
    this.#require('read_personal', userObject(user.id));
    return gitSshKeys.ensureGitSshKey(this.#db, user.id, this.#store.nowIso());
  }

  /** Replaces a user's git SSH key with a new pair; needs `update_personal` on the user. */
  async regenerateGitSshKey(userId: string): Promise<gitSshKeys.GitSshKeyRow> {
    const user = await this.getUser(userId);
    this.#require('update_personal', userObject(user.id));
    await this.requireOutranks(user);
    return gitSshKeys.regenerateGitSshKey(this.#db, user.id, this.#store.nowIso());
  }

  // Organizations

  /** An organization by id, by name, or `default`. */
  async getOrganization(idOrName: string): Promise<organizations.OrganizationRow> {
    const db = this.#db;
    const row =
      idOrName === 'default' || idOrName === '00000000-0000-0000-0000-000000000000'
        ? await organizations.getDefaultOrganization(db)
        : isUuid(idOrName)
          ? await organizations.getOrganizationById(db, idOrName)
          : await organizations.getOrganizationByName(db, idOrName);
    if (!row) throw new NotFoundError('organization');
    this.#require('read', organizationObject(row.id));
    return row;
  }

  /** The organizations the subject may read, by name; with `memberUserId`, only those that user belongs to. */
  async listOrganizations(filter: { readonly memberUserId?: string } = {}): Promise<organizations.OrganizationRow[]> {
    const allowed = listFilter(this.subject, 'read', 'organization');
    const memberUserId = filter.memberUserId;
    let query = this.#db
      .selectFrom('organizations')
      .selectAll()
      .where((eb) => allowedRows(eb, allowed, { org: 'id', owner: null }));
    if (memberUserId !== undefined) {
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('organization_members as m')
            .select('m.user_id')
            .whereRef('m.organization_id', '=', 'organizations.id')
            .where('m.user_id', '=', memberUserId),
        ),
      );
    }
    return query.orderBy('name').execute();
  }

  /**
   * The default organization, created from `row` when there is none. Replicas starting at once
   * agree: the unique index decides and the loser reads the winner's row.
   */
  async ensureDefaultOrganization(row: organizations.OrganizationRow): Promise<organizations.OrganizationRow> {
    this.#require('read', siteObject('organization'));
    const existing = await organizations.getDefaultOrganization(this.#db);
    if (existing) return existing;
    this.#require('create', siteObject('organization'));
    try {
      return await withConflicts(() => organizations.insertOrganization(this.#db, { ...row, is_default: 1 }));
    } catch (error) {
      const winner = error instanceof ConflictError ? await organizations.getDefaultOrganization(this.#db) : undefined;
      if (!winner) throw error;
      return winner;
    }
  }

  /** The custom roles of one organization; needs read on the organization's role assignments. */
  async listCustomRoles(organizationId: string): Promise<Role[]> {
    this.#require('read', orgScoped('assign_org_role', organizationId));
    return loadCustomRoles(this.#db, [organizationId]);
  }

  /** Creates an organization with its creator as a member. */
  async createOrganization(row: organizations.OrganizationRow): Promise<organizations.OrganizationRow> {
    this.#require('create', siteObject('organization'));
    return this.#db.transaction().execute(async (trx) => {
      await withConflicts(() => organizations.insertOrganization(trx, row));
      await members.insertMember(trx, {
        user_id: this.subject.id,
        organization_id: row.id,
        roles: '[]',
        created_at: row.created_at,
        updated_at: row.created_at,
      });
      return row;
    });
  }

  /** Changes an organization's fields. */
  async updateOrganization(
    id: string,
    changes: Partial<Omit<organizations.OrganizationRow, 'id' | 'is_default'>>,
  ): Promise<organizations.OrganizationRow> {
    const current = await this.getOrganization(id);
    this.#require('update', organizationObject(current.id));
    await withConflicts(() =>
      this.#db
        .updateTable('organizations')
        .set({ ...changes, updated_at: this.#store.nowIso() })
        .where('id', '=', current.id)
        .execute(),
    );
    return this.getOrganization(current.id);
  }

  /** Deletes an organization and its memberships. */
  async deleteOrganization(id: string): Promise<void> {
    const current = await this.getOrganization(id);
    this.#require('delete', organizationObject(current.id));
    await this.#db.deleteFrom('organizations').where('id', '=', current.id).execute();
    await this.#store.invalidateSessions('*');
  }

  /** Members of an organization the subject may read, with their users, by username; and the total. */
  async listMembers(
    organizationId: string,
    page: { readonly limit: number; readonly offset: number },
  ): Promise<{ rows: MemberWithUser[]; count: number }> {
    const filter = listFilter(this.subject, 'read', 'organization_member');
    const base = this.#db
      .selectFrom('organization_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .where('m.organization_id', '=', organizationId)
      .where('u.deleted', '=', 0)
      .where((eb) => allowedRows(eb, filter, { org: 'm.organization_id', owner: 'm.user_id' }));
    const countRow = await base.select((eb) => eb.fn.countAll().as('count')).executeTakeFirst();
    // Users first, in username order (SQLite keeps a CROSS JOIN's order; PostgreSQL plans it as an
    // inner join), so a page reads its rows from the username index instead of sorting every member.
    let query = this.#db
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
    if (page.offset > 0) query = query.$if(page.limit <= 0 && this.#store.dialect === 'sqlite', (qb) => qb.limit(-1)).offset(page.offset);
    return { rows: await query.execute(), count: Number(countRow?.count ?? 0) };
  }

  /** Adds a user to an organization with no extra roles. */
  async addMember(organizationId: string, userId: string): Promise<members.MemberRow> {
    this.#require('create', orgMemberObject(userId, organizationId));
    const now = this.#store.nowIso();
    const row = await withConflicts(() =>
      members.insertMember(this.#db, {
        user_id: userId,
        organization_id: organizationId,
        roles: '[]',
        created_at: now,
        updated_at: now,
      }),
    );
    await this.#store.invalidateSessions({ userId });
    return row;
  }

  /** Removes a user from an organization. */
  async removeMember(organizationId: string, userId: string): Promise<void> {
    this.#require('delete', orgMemberObject(userId, organizationId));
    await this.requireOutranks(userId, organizationId);
    const result = await this.#db
      .deleteFrom('organization_members')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new NotFoundError('member');
    await this.#store.invalidateSessions({ userId });
  }

  /** Replaces a member's stored organization roles; needs `assign`/`unassign` on the organization's role assignments as used. */
  async setMemberRoles(
    organizationId: string,
    userId: string,
    roles: readonly string[],
    changed: { readonly added: boolean; readonly removed: boolean },
  ): Promise<members.MemberRow> {
    if (changed.added) this.#require('assign', orgScoped('assign_org_role', organizationId));
    if (changed.removed) this.#require('unassign', orgScoped('assign_org_role', organizationId));
    await this.requireOutranks(userId, organizationId);
    const now = this.#store.nowIso();
    const result = await this.#db
      .updateTable('organization_members')
      .set({ roles: JSON.stringify(roles), updated_at: now })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new NotFoundError('member');
    await this.#store.invalidateSessions({ userId });
    const row = await this.getMember(organizationId, userId);
    return row;
  }

  /** One membership the subject may read. */
  async getMember(organizationId: string, userId: string): Promise<members.MemberRow> {
    const row = await this.#db
      .selectFrom('organization_members')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError('member');
    this.#require('read', orgMemberObject(userId, organizationId));
    return row;
  }

  /**
   * Inserts (`create`) or replaces (`update`) a custom role of an organization. Its members' cached
   * sessions are dropped so the change takes effect at once.
   */
  async saveCustomRole(role: Role, mode: 'create' | 'update'): Promise<void> {
    this.#require(mode, orgScoped('assign_org_role', role.organization_id));
    const now = this.#store.nowIso();
    const columns = {
      display_name: role.display_name,
      site_permissions: JSON.stringify(role.site),
      org_permissions: JSON.stringify(role.org),
      user_permissions: JSON.stringify(role.user),
      updated_at: now,
    };
    if (mode === 'create') {
      await withConflicts(() =>
        this.#db
          .insertInto('custom_roles')
          .values({ name: role.name, organization_id: role.organization_id, created_at: now, ...columns })
          .execute(),
      );
    } else {
      const result = await this.#db
        .updateTable('custom_roles')
        .set(columns)
        .where('name', '=', role.name)
        .where('organization_id', '=', role.organization_id)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw new NotFoundError('role');
    }
    await this.#store.invalidateSessions('*');
  }

  /** Deletes a custom role; members that held it keep the name, which then grants nothing. */
  async deleteCustomRole(organizationId: string, name: string): Promise<boolean> {
    this.#require('delete', orgScoped('assign_org_role', organizationId));
    const result = await this.#db
      .deleteFrom('custom_roles')
      .where('name', '=', name)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    await this.#store.invalidateSessions('*');
    return Number(result.numDeletedRows) > 0;
  }

  // Site settings

  /** The value stored under `key`, storing `value` first if there is none; needs read and create on site settings. */
  async ensureSiteValue(key: string, value: string): Promise<string> {
    this.#require('read', siteObject('system'));
    this.#require('create', siteObject('system'));
    return siteConfig.ensureSiteValue(this.#db, key, value);
  }

  // Health and metrics

  /** The health report sections an operator dismissed; needs read on the deployment config. */
  async listDismissedHealthChecks(): Promise<string[]> {
    this.#require('read', siteObject('deployment_config'));
    return healthChecks.listDismissedSections(this.#db);
  }

  /** Makes `sections` the dismissed health report sections; needs update on the deployment config. */
  async setDismissedHealthChecks(sections: readonly string[]): Promise<void> {
    this.#require('update', siteObject('deployment_config'));
    await healthChecks.replaceDismissedSections(this.#db, [...new Set(sections)], this.#store.nowIso());
  }

  /** One round trip to the database, for the health check; needs read on debug information. */
  async pingDatabase(): Promise<void> {
    this.#require('read', siteObject('debug_info'));
    await healthChecks.pingDatabase(this.#db);
  }

  /** The provisioner daemons of every organization seen since `since`; needs read on daemons everywhere. */
  async listProvisionerDaemonsSeenSince(since: Date): Promise<(provisionerDaemons.ProvisionerDaemonRow & { key_name: string | null })[]> {
    this.#require('read', siteObject('provisioner_daemon'));
    return provisionerDaemons.listDaemonsSeenSince(this.#db, since.toISOString());
  }

  /** Live workspaces counted by the state of their latest build; needs read on every workspace, dormant ones too. */
  async countWorkspacesByLatestBuild(): Promise<metricCounts.LatestBuildStateCount[]> {
    this.#require('read', siteObject('workspace'));
    this.#require('read', siteObject('workspace_dormant'));
    return metricCounts.countLatestBuildStates(this.#db);
  }

  /** Provisioner jobs queued and running, in every organization; needs read on every job. */
  async countActiveProvisionerJobs(): Promise<{ readonly queued: number; readonly running: number }> {
    this.#require('read', siteObject('provisioner_jobs'));
    return metricCounts.countActiveJobs(this.#db);
  }

  // Sessions

  /**
   * The session of an API key: the cached one, else the key, its user and the user's subject as
   * stored now. Undefined when the key or its live user does not exist. Needs read on both.
   */
  async getSession(keyId: string, now: Date, options: SubjectOptions): Promise<CachedSession | undefined> {
    return this.getCachedSession(keyId, now) ?? this.#authorizedSession(await this.#loadSession(keyId, options));
  }

  /**
   * The session of a key from the cache alone, without waiting: most requests present a key that
   * a recent request loaded. Undefined when it is not cached; needs read on the key and its user.
   */
  getCachedSession(keyId: string, now: Date): CachedSession | undefined {
    return this.#authorizedSession(this.#store.sessions.get(keyId, now.getTime()));
  }

  #authorizedSession(session: CachedSession | undefined): CachedSession | undefined {
    if (!session || this.#sessionsShown?.has(session)) return session;
    this.#require('read', apiKeyObject(session.apiKey.user_id, session.apiKey.id));
    this.#require('read', userObject(session.user.id));
    (this.#sessionsShown ??= new WeakSet()).add(session);
    return session;
  }

  async #loadSession(keyId: string, options: SubjectOptions): Promise<CachedSession | undefined> {
    const apiKey = await apiKeys.getApiKeyById(this.#db, keyId);
    const user = apiKey ? await users.getUserById(this.#db, apiKey.user_id) : undefined;
    if (!apiKey || !user) return undefined;
    const scope = apiKey.scope === 'application_connect' ? 'application_connect' : 'all';
    return { apiKey, user, subject: await loadUserSubject(this.#db, user, scope, options) };
  }

  /** Keeps a verified session so that the next request with its key costs no query; needs read on the key. */
  rememberSession(session: CachedSession, now: Date): void {
    this.#require('read', apiKeyObject(session.apiKey.user_id, session.apiKey.id));
    this.#store.sessions.set(session, now.getTime());
  }

  /** Records a key's use: when and from where, and a refreshed expiry. Needs `update` on the key. */
  async recordApiKeyUse(
    apiKey: apiKeys.ApiKeyRow,
    changes: Partial<Pick<apiKeys.ApiKeyRow, 'last_used' | 'ip_address' | 'expires_at' | 'updated_at'>>,
  ): Promise<void> {
    this.#require('update', apiKeyObject(apiKey.user_id, apiKey.id));
    await apiKeys.updateApiKey(this.#db, apiKey.id, changes);
  }

  // Deployment stats

  /** The latest build of every live workspace with its job, and agent reports since `since`. */
  async getDeploymentStatsInputs(since: Date): Promise<DeploymentStatsInputs> {
    this.#require('read', siteObject('deployment_stats'));
    return deploymentStatsInputs(this.#db, since.toISOString());
  }

  // Usage and insights

  /**
   * Records minutes of use of a workspace, as its owner's use of its template. Needs `update` on
   * the workspace: use moves it (its last use and deadline) in the same way.
   */
  async recordUsageMinutes(
    workspace: workspaces.WorkspaceRow,
    minutes: readonly Omit<insights.UsageMinute, 'user_id' | 'template_id'>[],
  ): Promise<void> {
    this.#require('update', workspaceRbac(workspace));
    await insights.recordUsageMinutes(
      this.#db,
      minutes.map((minute) => ({ ...minute, user_id: workspace.owner_id, template_id: workspace.template_id })),
    );
  }

  /**
   * Distinct users per day over every template, days counted in the offset given (minutes east of
   * UTC). Deployment-wide numbers: needs `read` on the deployment config, as the reference.
   */
  async getDailyActiveUsers(
    range: { readonly from: number; readonly to: number },
    offsetMinutes: number,
  ): Promise<{ day: number; amount: number }[]> {
    this.#require('read', siteObject('deployment_config'));
    return insights.dailyActiveUsers(this.#db, { ...range, templateIds: 'all' }, offsetMinutes);
  }

  /**
   * Distinct users per day of one template's workspaces, days counted in the offset given (minutes
   * east of UTC). Anyone who may read the template may read its numbers.
   */
  async getTemplateDailyActiveUsers(
    template: templates.TemplateRow,
    range: { readonly from: number; readonly to: number },
    offsetMinutes: number,
  ): Promise<{ day: number; amount: number }[]> {
    this.#require('read', templateRbac(template));
    return insights.dailyActiveUsers(this.#db, { ...range, templateIds: [template.id] }, offsetMinutes);
  }

  /**
   * The templates whose insights a report covers: those asked for, each of which must be readable
   * (else 404) and allow `view_insights` (else 403); or, when none are asked for, every template
   * the subject may view insights of, and a 403 when there is none.
   */
  async #insightTemplateIds(templateIds: readonly string[]): Promise<string[]> {
    if (templateIds.length > 0) {
      const rows = await Promise.all(templateIds.map((id) => this.getTemplate(id)));
      for (const row of rows) this.#require('view_insights', templateRbac(row));
      return rows.map((row) => row.id);
    }
    const allowed = listFilter(this.subject, 'view_insights', 'template');
    if (!allowed.all && allowed.orgIds.length === 0) throw new NotAuthorizedError('view_insights', 'template');
    const rows = await this.#db
      .selectFrom('templates')
      .select('id')
      .where((eb) => allowedRows(eb, allowed, { org: 'templates.organization_id', owner: null }))
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * What a template insights report shows, for the templates `#insightTemplateIds` allows: users
   * per interval and overall, session and app use, and parameter values of workspaces built in
   * the range (`fromIso`/`toIso` bound the same range as `from`/`to` minutes).
   */
  async getTemplateInsights(
    templateIds: readonly string[],
    range: {
      readonly from: number;
      readonly to: number;
      readonly fromIso: string;
      readonly toIso: string;
      readonly intervalMinutes: number;
    },
  ) {
    const ids = await this.#insightTemplateIds(templateIds);
    const scope: insights.UsageScope = { from: range.from, to: range.to, templateIds: ids };
    const db = this.#db;
    const [intervals, total, sessions, apps, parameterValues, parameterDefinitions] = await Promise.all([
      insights.activeUsersByInterval(db, scope, range.intervalMinutes),
      insights.activeUsersInRange(db, scope),
      insights.sessionMinutes(db, scope),
      insights.appUsage(db, scope),
      insights.parameterValueCounts(db, this.#store.dialect, { from: range.fromIso, to: range.toIso, templateIds: ids }),
      insights.activeVersionParameters(db, ids),
    ]);
    return { templateIds: ids, intervals, total, sessions, apps, parameterValues, parameterDefinitions };
  }

  /** Each user's time of use in the range, over the templates `#insightTemplateIds` allows. */
  async getUserActivityInsights(templateIds: readonly string[], range: { readonly from: number; readonly to: number }) {
    const ids = await this.#insightTemplateIds(templateIds);
    return insights.userActivity(this.#db, { ...range, templateIds: ids });
  }

  /** Each user's connection latency percentiles in the range, over the templates `#insightTemplateIds` allows. */
  async getUserLatencyInsights(templateIds: readonly string[], range: { readonly from: number; readonly to: number }) {
    const ids = await this.#insightTemplateIds(templateIds);
    return insights.userLatency(this.#db, { ...range, templateIds: ids });
  }

  /** How many users had each status at each instant (ISO 8601); needs `read` on every user. */
  async getUserStatusCounts(instants: readonly string[]): Promise<{ instant: string; status: string; count: number }[]> {
    this.#require('read', siteObject('user'));
    return insights.userStatusCounts(this.#db, instants);
  }

  // Licenses

  /** Stores a verified license; needs `create` on licenses. */
  async insertLicense(row: Omit<licenses.LicenseRow, 'id'>): Promise<licenses.LicenseRow> {
    this.#require('create', siteObject('license'));
    return withConflicts(() => licenses.insertLicense(this.#db, row));
  }

  /** The stored licenses the subject may read (all or none: licenses are deployment-wide). */
  async listLicenses(): Promise<licenses.LicenseRow[]> {
    if (!this.can('read', siteObject('license'))) return [];
    return licenses.listLicenses(this.#db);
  }

  /** Deletes a license; needs `delete` on licenses. Throws NotFoundError when there is none with that id. */
  async deleteLicense(id: number): Promise<void> {
    this.#require('delete', siteObject('license'));
    if (!(await licenses.deleteLicense(this.#db, id))) throw new NotFoundError('license');
  }

  /** What entitlements are computed from: every license and the number of active users; needs `read` on both. */
  async getEntitlementInputs(): Promise<{ licenses: licenses.LicenseRow[]; activeUsers: number }> {
    this.#require('read', siteObject('license'));
    this.#require('read', siteObject('user'));
    const [rows, activeUsers] = await Promise.all([licenses.listLicenses(this.#db), licenses.countActiveUsers(this.#db)]);
    return { licenses: rows, activeUsers };
  }

  // API keys

  /** Stores a new key for its owner. */
  async insertApiKey(row: apiKeys.ApiKeyRow): Promise<apiKeys.ApiKeyRow> {
    this.#require('create', apiKeyObject(row.user_id));
    await this.requireOutranks(row.user_id);
    return withConflicts(() => apiKeys.insertApiKey(this.#db, row));
  }

  /** One key of one user by id. */
  async getApiKey(userId: string, keyId: string): Promise<apiKeys.ApiKeyRow> {
    const row = await apiKeys.getApiKeyById(this.#db, keyId);
    if (!row || row.user_id !== userId) throw new NotFoundError('api key');
    this.#require('read', apiKeyObject(row.user_id));
    return row;
  }

  /** Deletes one key of one user. */
  async deleteApiKey(userId: string, keyId: string): Promise<void> {
    const row = await this.getApiKey(userId, keyId);
    this.#require('delete', apiKeyObject(row.user_id));
    await this.requireOutranks(row.user_id);
    await apiKeys.deleteApiKey(this.#db, row.id);
    await this.#store.invalidateSessions({ keyId: row.id });
  }

  /**
   * Signs a user out: deletes the key and every key that app hosts were handed for the user (scope
   * `application_connect`), so that no subdomain app stays signed in after the dashboard is not.
   */
  async signOut(userId: string, keyId: string): Promise<void> {
    const row = await this.getApiKey(userId, keyId);
    this.#require('delete', apiKeyObject(row.user_id));
    await this.requireOutranks(row.user_id);
    await this.#db
      .deleteFrom('api_keys')
      .where('user_id', '=', row.user_id)
      .where((eb) => eb.or([eb('id', '=', row.id), eb('scope', '=', 'application_connect')]))
      .execute();
    // By user: the app keys' connections are this user's too, and each is checked again.
    await this.#store.invalidateSessions({ userId: row.user_id });
  }

  /**
   * Named tokens of one user, or of every user (`all`), with their owners' usernames, filtered in
   * SQL to what the subject may read, newest first; `name` narrows to one token name.
   */
  async listTokens(userId: string | 'all', filter: { readonly name?: string } = {}): Promise<TokenWithOwner[]> {
    const allowed = listFilter(this.subject, 'read', 'api_key');
    let query = this.#db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .selectAll('k')
      .select('u.username')
      .where('k.login_type', '=', 'token')
      .where((eb) => allowedRows(eb, allowed, { org: null, owner: 'k.user_id' }));
    if (userId !== 'all') query = query.where('k.user_id', '=', userId);
    if (filter.name !== undefined) query = query.where('k.token_name', '=', filter.name);
    return query.orderBy('k.created_at', 'desc').orderBy('k.id').execute();
  }

  // Files

  /**
   * Stores an upload for the subject, or returns the file they already uploaded with the same
   * bytes (`created: false`). A race between two identical uploads ends with both getting one row.
   */
  async saveFile(row: files.FileRow): Promise<{ readonly file: files.FileInfo; readonly created: boolean }> {
    this.#require('create', fileObject(row.created_by));
    const existing = await files.getFileByHash(this.#db, row.hash, row.created_by);
    if (existing) return { file: existing, created: false };
    try {
      await withConflicts(() => files.insertFile(this.#db, row));
    } catch (error) {
      const winner = await files.getFileByHash(this.#db, row.hash, row.created_by);
      if (!winner) throw error;
      return { file: winner, created: true };
    }
    const { data: _bytes, ...info } = row;
    return { file: info, created: true };
  }

  /** A file with its bytes: its uploader may read it, and so may those who read files in general (template admins). */
  async getFile(id: string): Promise<files.FileRow> {
    const row = await files.getFileById(this.#db, id);
    if (!row) throw new NotFoundError('file');
    this.#require('read', fileObject(row.created_by, row.id));
    return row;
  }

  // Templates

  /** A live template by id. */
  async getTemplate(id: string): Promise<templates.TemplateRow> {
    const row = isUuid(id) ? await templates.getTemplateById(this.#db, id) : undefined;
    if (!row) throw new NotFoundError('template');
    this.#require('read', templateRbac(row));
    return row;
  }

  /**
   * A live template with a version of it (the active one unless `versionId` names another) and
   * that version's import job, read together; and its organization, when the subject may read that
   * too (what a template's ACL grants may not). A named version of another template is not found.
   */
  async getTemplateWithVersion(
    id: string,
    versionId?: string,
  ): Promise<
    VersionWithJob & { readonly template: templates.TemplateRow; readonly organization: organizations.OrganizationRow | undefined }
  > {
    const found = isUuid(id) ? await templates.getTemplateWithVersion(this.#db, id, versionId) : undefined;
    if (!found) throw new NotFoundError('template');
    const { template, organization, version, job } = found;
    this.#require('read', templateRbac(template));
    // The template's own rights cover its versions, so the version's are not checked again.
    if (!version || version.template_id !== template.id) throw new NotFoundError('template version');
    if (!job) throw new NotFoundError('provisioner job');
    const readable = organization && this.can('read', organizationObject(organization.id)) ? organization : undefined;
    return { template, organization: readable, version, job };
  }

  /** A live template of an organization by name. */
  async getTemplateByName(organizationId: string, name: string): Promise<templates.TemplateRow> {
    const row = await templates.getTemplateByName(this.#db, organizationId, name);
    if (!row) throw new NotFoundError('template');
    this.#require('read', templateRbac(row));
    return row;
  }

  /**
   * Live templates the subject may read, by name: by role or through the templates' ACLs, both
   * decided in SQL, and filtered and paged there too.
   */
  async listTemplates(filter: templates.TemplateListFilter = {}): Promise<templates.TemplateRow[]> {
    const byRole = listFilter(this.subject, 'read', 'template');
    const dialect = this.#store.dialect;
    return templates.listTemplates(
      this.#db,
      dialect,
      (eb) =>
        byRole.all
          ? eb.lit(true)
          : eb.or([
              allowedRows(eb, byRole, { org: 'templates.organization_id', owner: null }),
              aclAllowedRows(dialect, this.subject, 'read', 'template', {
                org: 'templates.organization_id',
                userAcl: 'templates.user_acl',
                groupAcl: 'templates.group_acl',
              }),
            ]),
      filter,
    );
  }

  /** What answers for readable templates show besides their rows, in a fixed number of queries. */
  async getTemplateRelations(rows: readonly templates.TemplateRow[]): Promise<templates.TemplateRelations> {
    for (const row of rows) this.#require('read', templateRbac(row));
    const since = new Date(this.#store.clock.now().getTime() - 30 * 24 * 3_600_000).toISOString();
    return templates.templateRelations(this.#db, rows, since);
  }

  /** Whether a live workspace uses a readable template (one must not delete it then). */
  async templateHasWorkspaces(template: templates.TemplateRow): Promise<boolean> {
    this.#require('read', templateRbac(template));
    return templates.templateHasWorkspaces(this.#db, template.id);
  }

  /**
   * Applies a lowered maximum share level to the shares of the template's workspaces; `levels`
   * lists the levels from the narrowest. Needs `update` on the template.
   */
  async narrowTemplatePortShares(template: templates.TemplateRow, levels: readonly string[]): Promise<void> {
    this.#require('update', templateRbac(template));
    await templates.narrowPortShares(this.#db, template.id, template.max_port_share_level, levels);
  }

  /** Creates a template from a version that belongs to no template yet, making it the active version. */
  async insertTemplate(row: templates.TemplateRow): Promise<templates.TemplateRow> {
    this.#require('create', orgScoped('template', row.organization_id));
    await this.#db.transaction().execute(async (trx) => {
      await withConflicts(() => templates.insertTemplate(trx, row));
      const claimed = await trx
        .updateTable('template_versions')
        .set({ template_id: row.id, updated_at: row.created_at })
        .where('id', '=', row.active_version_id)
        .where('template_id', 'is', null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1)
        throw new ConflictError('template_versions_template', 'version already belongs to a template');
    });
    return row;
  }

  /** Changes a template's row; `delete` marks it deleted. */
  async updateTemplate(
    template: templates.TemplateRow,
    changes: Partial<Omit<templates.TemplateRow, 'id'>>,
    action: 'update' | 'delete' = 'update',
  ): Promise<templates.TemplateRow> {
    this.#require(action, templateRbac(template));
    await withConflicts(() => templates.updateTemplate(this.#db, template.id, { ...changes, updated_at: this.#store.nowIso() }));
    const updated = await templates.getTemplateById(this.#db, template.id);
    return updated ?? { ...template, ...changes };
  }

  /** Throws NotAuthorizedError unless the subject may act on the template (or on a version's template). */
  async authorizeTemplate(
    action: 'update' | 'delete' | 'use',
    target: { readonly template: templates.TemplateRow } | { readonly version: templates.TemplateVersionRow },
  ): Promise<void> {
    this.#require(action, 'template' in target ? templateRbac(target.template) : await this.#versionRbac(target.version));
  }

  // Template versions

  /**
   * Creates a version and its import job together. Adding to a template needs `update` on it; a
   * version for no template yet needs the right to create templates in the organization.
   */
  async insertTemplateVersion(
    version: templates.TemplateVersionRow,
    job: jobs.ProvisionerJobRow,
    template?: templates.TemplateRow,
  ): Promise<void> {
    this.#require(template ? 'update' : 'create', template ? templateRbac(template) : orgScoped('template', version.organization_id));
    await this.#db.transaction().execute(async (trx) => {
      await jobs.insertJob(trx, job);
      await withConflicts(() => templates.insertTemplateVersion(trx, version));
    });
  }

  /** A version and its import job. */
  async getTemplateVersion(id: string): Promise<VersionWithJob> {
    const version = isUuid(id) ? await templates.getTemplateVersionById(this.#db, id) : undefined;
    if (!version) throw new NotFoundError('template version');
    this.#require('read', await this.#versionRbac(version));
    const job = await jobs.getJobById(this.#db, version.job_id);
    if (!job) throw new NotFoundError('provisioner job');
    return { version, job };
  }

  /** A version of a readable template by name, case-insensitively, with its job. */
  async getTemplateVersionByName(template: templates.TemplateRow, name: string): Promise<VersionWithJob> {
    this.#require('read', templateRbac(template));
    const version = await templates.getTemplateVersionByName(this.#db, template.id, name);
    if (!version) throw new NotFoundError('template version');
    return (await this.#withJobs([version]))[0] ?? notFound('provisioner job');
  }

  /** The version of a readable template made just before `version`, if any. */
  async getPreviousTemplateVersion(
    template: templates.TemplateRow,
    version: templates.TemplateVersionRow,
  ): Promise<VersionWithJob | undefined> {
    this.#require('read', templateRbac(template));
    const previous = await templates.previousTemplateVersion(this.#db, template.id, version.created_at);
    return previous ? (await this.#withJobs([previous]))[0] : undefined;
  }

  /** The versions of a readable template, oldest first, with their jobs. */
  async listTemplateVersions(template: templates.TemplateRow): Promise<VersionWithJob[]> {
    this.#require('read', templateRbac(template));
    return this.#withJobs(await templates.listTemplateVersions(this.#db, template.id));
  }

  /**
   * A page of a readable template's versions, oldest first, with their jobs; filtered and paged in
   * SQL. `missing-after` when the version to start after is not in the list.
   */
  async pageTemplateVersions(
    template: templates.TemplateRow,
    page: templates.TemplateVersionPage,
  ): Promise<VersionWithJob[] | 'missing-after'> {
    this.#require('read', templateRbac(template));
    const versions = await templates.pageTemplateVersions(this.#db, this.#store.dialect, template.id, page);
    return versions === 'missing-after' ? versions : this.#withJobs(versions);
  }

  /** The public fields (username, avatar) of the creators of readable versions. */
  async getVersionCreators(
    versions: readonly templates.TemplateVersionRow[],
  ): Promise<Map<string, { readonly id: string; readonly username: string; readonly avatar_url: string }>> {
    for (const rbac of await this.#versionsRbac(versions)) this.#require('read', rbac);
    return templates.versionCreators(
      this.#db,
      versions.map((version) => version.created_by),
    );
  }

  /** Renames, re-describes or (un)archives a version; needs `update` on its template. */
  async updateTemplateVersion(
    version: templates.TemplateVersionRow,
    changes: Partial<Pick<templates.TemplateVersionRow, 'name' | 'message' | 'archived'>>,
  ): Promise<void> {
    this.#require('update', await this.#versionRbac(version));
    await withConflicts(() => templates.updateTemplateVersion(this.#db, version.id, { ...changes, updated_at: this.#store.nowIso() }));
  }

  /**
   * Asks a version's job to stop: a job no live daemon holds ends at once, a running one is
   * `canceling` until its daemon reports. Needs `update` on the version's template.
   */
  async cancelTemplateVersionJob(
    version: templates.TemplateVersionRow,
    job: jobs.ProvisionerJobRow,
    cancellation: jobs.JobCancellation,
  ): Promise<jobs.ProvisionerJobRow> {
    this.#require('update', await this.#versionRbac(version));
    return this.#cancelJob(job, cancellation);
  }

  /** The resources a version's import found (start and stop), or a dry run's, by name. */
  async listJobResources(version: templates.TemplateVersionRow, jobId: string): Promise<jobs.WorkspaceResourceRow[]> {
    this.#require('read', await this.#versionRbac(version));
    return jobs.listResourcesOfJobs(this.#db, [jobId]);
  }

  /** Log lines of a job of a readable version. */
  async listJobLogs(
    version: templates.TemplateVersionRow,
    jobId: string,
    range: { after?: number | undefined; before?: number | undefined },
  ): Promise<jobs.ProvisionerJobLogRow[]> {
    this.#require('read', await this.#versionRbac(version));
    return jobs.listJobLogs(this.#db, jobId, range);
  }

  /**
   * Queues a dry run of a version for the subject: planning a workspace of their own needs the
   * right to create one in the version's organization.
   */
  async insertDryRunJob(version: templates.TemplateVersionRow, job: jobs.ProvisionerJobRow): Promise<void> {
    this.#require('read', await this.#versionRbac(version));
    this.#require('create', orgScoped('workspace', version.organization_id, this.subject.id));
    await jobs.insertJob(this.#db, job);
  }

  /** A dry run of a readable version, started by a user whose workspaces the subject may read. */
  async getDryRunJob(version: templates.TemplateVersionRow, jobId: string): Promise<jobs.ProvisionerJobRow> {
    this.#require('read', await this.#versionRbac(version));
    const job = isUuid(jobId) ? await jobs.getJobById(this.#db, jobId) : undefined;
    if (
      !job ||
      job.type !== 'template_version_dry_run' ||
      parseJson<{ template_version_id?: string }>(job.input, {}).template_version_id !== version.id
    ) {
      throw new NotFoundError('provisioner job');
    }
    this.#require('read', orgScoped('workspace', job.organization_id, job.initiator_id));
    return job;
  }

  /** Cancels a dry run the subject may read and could have started. */
  async cancelDryRunJob(job: jobs.ProvisionerJobRow, cancellation: jobs.JobCancellation): Promise<jobs.ProvisionerJobRow> {
    this.#require('update', orgScoped('workspace', job.organization_id, job.initiator_id));
    return this.#cancelJob(job, cancellation);
  }

  /**
   * Cancels a job whose cancel was authorized. A started job whose daemon is no longer alive ends
   * at once (nobody would ever report it), with log lines saying why in its last stage.
   */
  async #cancelJob(job: jobs.ProvisionerJobRow, cancellation: jobs.JobCancellation): Promise<jobs.ProvisionerJobRow> {
    const now = this.#store.nowIso();
    // A cancel may end the job at once: as for finishProvisionerJob.
    await this.#store.changingAgentAuths('*', () =>
      this.#db.transaction().execute(async (trx) => {
        if (!(await jobs.cancelJob(trx, job.id, now, cancellation.live))) return;
        const stage = (await jobs.lastLogStage(trx, job.id)) ?? 'Unknown';
        await jobs.insertJobLogs(
          trx,
          job.id,
          cancellation.orphanLines.map((output) => ({ created_at: now, source: 'provisioner_daemon', level: 'warn', stage, output })),
        );
      }),
    );
    return (await jobs.getJobById(this.#db, job.id)) ?? job;
  }

  async #versionRbac(version: templates.TemplateVersionRow): Promise<RbacObject> {
    return (await this.#versionsRbac([version]))[0] ?? orgScoped('template', version.organization_id);
  }

  /** The RBAC objects of versions (their templates', or for a version of no template yet its creator's), in one query. */
  async #versionsRbac(versions: readonly templates.TemplateVersionRow[]): Promise<RbacObject[]> {
    const templateIds = [...new Set(versions.flatMap((version) => (version.template_id ? [version.template_id] : [])))];
    const found = await templates.templateAcls(this.#db, templateIds);
    const byId = new Map(found.map((template) => [template.id, templateRbac(template)]));
    return versions.map((version) =>
      version.template_id
        ? (byId.get(version.template_id) ?? orgScoped('template', version.organization_id))
        : orgScoped('template', version.organization_id, version.created_by),
    );
  }

  async #withJobs(versions: readonly templates.TemplateVersionRow[]): Promise<VersionWithJob[]> {
    const byId = new Map(
      (
        await jobs.getJobsByIds(
          this.#db,
          versions.map((v) => v.job_id),
        )
      ).map((job) => [job.id, job]),
    );
    return versions.flatMap((version) => {
      const job = byId.get(version.job_id);
      return job ? [{ version, job }] : [];
    });
  }

  // Provisioner jobs

  /** One job of an organization; only those who may read the organization's jobs see it. */
  async getProvisionerJob(organizationId: string, jobId: string): Promise<jobs.ProvisionerJobRow> {
    const job = isUuid(jobId) ? await jobs.getJobById(this.#db, jobId) : undefined;
    if (!job || job.organization_id !== organizationId) throw new NotFoundError('provisioner job');
    this.#require('read', orgScoped('provisioner_jobs', organizationId));
    return job;
  }

  /** Jobs of an organization that pass the filter, newest first; filtered and limited in SQL. */
  async listProvisionerJobs(organizationId: string, filter: jobs.JobListFilter): Promise<jobs.ProvisionerJobRow[]> {
    this.#require('read', orgScoped('provisioner_jobs', organizationId));
    return jobs.listJobs(this.#db, this.#store.dialect, organizationId, filter);
  }

  /**
   * What answers for readable jobs show besides their rows: the daemons of their organizations,
   * the queues (for positions) and the templates of their versions, in a fixed number of queries.
   * Builds and versions the caller has read already (`known`) are not read again.
   */
  async getJobRelations(rows: readonly jobs.ProvisionerJobRow[], known?: jobs.KnownJobRelations): Promise<jobs.JobRelations> {
    await this.#requireJobs('read', rows);
    return jobs.jobRelations(this.#db, this.#store.dialect, rows, known);
  }

  /**
   * Follows the logs of a job the subject may read (through its template version or workspace),
   * authorized once: the reader it returns serves one log stream.
   */
  async followJobLogs(jobId: string): Promise<JobLogReader> {
    const job = isUuid(jobId) ? await jobs.getJobById(this.#db, jobId) : undefined;
    if (!job) throw new NotFoundError('provisioner job');
    await this.#requireJobs('read', [job]);
    const db = this.#db;
    return {
      logsAfter: async (after) => jobs.listJobLogs(db, job.id, { after }),
      finished: async () => {
        const now = await jobs.getJobById(db, job.id);
        return !now || now.completed_at !== null;
      },
    };
  }

  /**
   * Throws unless the subject may act on every job: those who may on the organization's jobs may
   * on all of them; others through the job's template version (imports, dry runs) or workspace
   * (builds). The parents are read in at most three queries.
   */
  async #requireJobs(action: 'read' | 'update', rows: readonly jobs.ProvisionerJobRow[]): Promise<void> {
    const rest = rows.filter((row) => !this.can(action, orgScoped('provisioner_jobs', row.organization_id)));
    if (rest.length === 0) return;
    const builds = rest.filter((row) => row.type === 'workspace_build');
    const versionJobs = rest.filter((row) => row.type !== 'workspace_build');
    if (builds.length > 0) {
      const byJob = await jobCompletion.workspacesOfBuildJobs(
        this.#db,
        builds.map((row) => row.id),
      );
      for (const row of builds) {
        const workspace = byJob.get(row.id);
        if (!workspace) throw new NotFoundError('provisioner job');
        this.#require(action, workspaceRbac(workspace));
      }
    }
    if (versionJobs.length > 0) {
      // An import is its version's job; a dry run names the version it plans.
      const dryRunVersionIds = versionJobs.map((row) =>
        row.type === 'template_version_dry_run'
          ? (parseJson<{ template_version_id?: string }>(row.input, {}).template_version_id ?? '')
          : '',
      );
      const versions = await templates.versionsOfJobs(
        this.#db,
        versionJobs.map((row) => row.id),
        dryRunVersionIds.filter((id) => id !== ''),
      );
      const rbacs = await this.#versionsRbac(versions);
      const byJob = new Map(versions.map((version, index) => [version.job_id, rbacs[index]]));
      const byId = new Map(versions.map((version, index) => [version.id, rbacs[index]]));
      for (const [index, row] of versionJobs.entries()) {
        const rbac = row.type === 'template_version_dry_run' ? byId.get(dryRunVersionIds[index] ?? '') : byJob.get(row.id);
        if (!rbac) throw new NotFoundError('provisioner job');
        this.#require(action, rbac);
        // A dry run plans a workspace of its initiator's: only those who may read such a workspace see it.
        if (row.type === 'template_version_dry_run') this.#require('read', orgScoped('workspace', row.organization_id, row.initiator_id));
      }
    }
  }

  // Provisioner keys and daemons

  /** Creates a key that lets a provisioner daemon serve the organization. */
  async insertProvisionerKey(row: provisionerKeys.ProvisionerKeyRow): Promise<void> {
    this.#require('create', orgScoped('provisioner_daemon', row.organization_id));
    await withConflicts(() => provisionerKeys.insertProvisionerKey(this.#db, row));
  }

  /** The organization's provisioner keys (never their secrets, which are not stored). */
  async listProvisionerKeys(organizationId: string): Promise<provisionerKeys.ProvisionerKeyRow[]> {
    this.#require('read', orgScoped('provisioner_daemon', organizationId));
    return provisionerKeys.listProvisionerKeys(this.#db, organizationId);
  }

  /** The key whose secret hashes to `hashedSecret`, to authenticate a connecting daemon. */
  async getProvisionerKeyByHash(hashedSecret: string): Promise<provisionerKeys.ProvisionerKeyRow> {
    const row = await provisionerKeys.getProvisionerKeyByHash(this.#db, hashedSecret);
    if (!row) throw new NotFoundError('provisioner key');
    this.#require('read', orgScoped('provisioner_daemon', row.organization_id));
    return row;
  }

  /** Deletes a key by name; daemons that used it are refused from their next connection on. */
  async deleteProvisionerKey(organizationId: string, name: string): Promise<void> {
    this.#require('delete', orgScoped('provisioner_daemon', organizationId));
    if (!(await provisionerKeys.deleteProvisionerKey(this.#db, organizationId, name))) throw new NotFoundError('provisioner key');
  }

  /** The provisioner daemons that have served the organization, with their key names and whether each is busy. */
  async listProvisionerDaemons(organizationId: string): Promise<provisionerDaemons.ProvisionerDaemonWithState[]> {
    this.#require('read', orgScoped('provisioner_daemon', organizationId));
    return provisionerDaemons.listDaemonsWithState(this.#db, organizationId);
  }

  /** Records a connecting daemon's row, or refreshes the row it had. */
  async registerProvisionerDaemon(row: provisionerDaemons.ProvisionerDaemonRow): Promise<void> {
    this.#require('create', orgScoped('provisioner_daemon', row.organization_id));
    this.#require('update', orgScoped('provisioner_daemon', row.organization_id));
    await provisionerDaemons.upsertDaemon(this.#db, row);
  }

  /** Marks a daemon of the organization as seen now. */
  async touchProvisionerDaemon(organizationId: string, daemonId: string): Promise<void> {
    this.#require('update', orgScoped('provisioner_daemon', organizationId));
    await provisionerDaemons.touchDaemon(this.#db, daemonId, this.#store.nowIso());
  }

  // The provisioner job protocol

  /**
   * Claims the oldest queued job of the organization that `taker` may run, and reads it with what
   * running it needs (as getProvisionerJobWithContext with `run`); undefined when there is none.
   */
  async claimNextProvisionerJob(organizationId: string, taker: jobs.JobTaker): Promise<jobCompletion.JobWithContext | undefined> {
    this.#require('update', orgScoped('provisioner_jobs', organizationId));
    const claim = jobs.claimStatement(this.#db, this.#store.dialect, organizationId, taker, this.#store.nowIso());
    const claimed = claim && (await jobCompletion.claimJobToRun(this.#db, this.#store.dialect, claim));
    if (claimed) this.#authorizeJobContext(claimed);
    return claimed;
  }

  /**
   * A job of the organization with what running it (`run`) or recording its completion
   * (`record`) needs, read together. Each part is authorized as reading it alone would be.
   */
  async getProvisionerJobWithContext(
    organizationId: string,
    jobId: string,
    purpose: jobCompletion.JobContextPurpose,
  ): Promise<jobCompletion.JobWithContext> {
    const found = isUuid(jobId) ? await jobCompletion.readJobWithContext(this.#db, jobId, purpose) : undefined;
    if (!found || found.job.organization_id !== organizationId) throw new NotFoundError('provisioner job');
    this.#authorizeJobContext(found);
    return found;
  }

  /** Reading a job with its context is reading each part. */
  #authorizeJobContext({ job, context }: jobCompletion.JobWithContext): void {
    this.#require('read', orgScoped('provisioner_jobs', job.organization_id));
    if (context.file) this.#require('read', fileObject(context.file.created_by, context.file.id));
    if (context.initiatorUsername !== undefined) this.#require('read', userObject(job.initiator_id));
    const workspace = context.build?.workspace;
    if (workspace) this.#require('read', workspaceRbac(workspace));
    if (context.build?.template) this.#require('read', templateRbac(context.build.template));
  }

  /** The workspace a build job belongs to, or undefined for other jobs. */
  async getWorkspaceIdOfJob(job: jobs.ProvisionerJobRow): Promise<string | undefined> {
    this.#require('read', orgScoped('provisioner_jobs', job.organization_id));
    return jobCompletion.workspaceIdOfJob(this.#db, job.id);
  }

  /** Appends log lines to a running job and marks it as heard from. */
  async appendProvisionerJobLogs(job: jobs.ProvisionerJobRow, logs: readonly jobs.JobLogLine[]): Promise<void> {
    this.#require('update', orgScoped('provisioner_jobs', job.organization_id));
    await jobs.appendJobLogs(this.#db, this.#store.dialect, job.id, logs, this.#store.nowIso());
  }

  /**
   * Stores what a finished job found and marks it completed, all or nothing, if `expected` holds
   * (see CompletionExpectation); resolves with whether it did. What is stored is `complete(now)`,
   * made once the statement has its connection, so that the job's `completed_at` is when its end
   * is written, not when it began waiting for a connection. Writing an import's results needs
   * `update` on the version's template; a build's, `update` (or, for a delete build, `delete`) on
   * its workspace, as `workspace` has it, which the expectation then includes. The other replicas'
   * agent-token invalidation is on its way (`announced`), for the caller to await with its own events.
   */
  async completeProvisionerJob(
    job: jobs.ProvisionerJobRow,
    complete: (now: string) => jobCompletion.JobCompletion,
    workspace: workspaces.WorkspaceRow | undefined,
    expected: jobCompletion.CompletionExpectation,
  ): Promise<{ readonly stored: boolean; readonly announced: Promise<void> }> {
    this.#require('update', orgScoped('provisioner_jobs', job.organization_id));
    // Decided before the connection is held: deciding reads on a connection of its own.
    const writesVersion = job.type === 'template_version_import';
    if (writesVersion) {
      const [version] = await templates.versionsOfJobs(this.#db, [job.id], []);
      if (version) this.#require('update', await this.#versionRbac(version));
    }
    return this.#db.connection().execute(async (db) => {
      const completion = complete(this.#store.nowIso());
      if (completion.version && !writesVersion) throw new NotAuthorizedError('update', 'template');
      let authorizedOn = expected;
      if (completion.build) {
        if (!workspace || workspace.id !== completion.build.workspaceId) throw new NotFoundError('workspace');
        this.#require(completion.build.deletesWorkspace ? 'delete' : 'update', workspaceRbac(workspace));
        // Dormancy makes a workspace another object to the policy: the decision holds while it is unchanged.
        const values = { ...expected.workspace?.values, dormant_at: workspace.dormant_at };
        authorizedOn = { ...expected, workspace: { id: workspace.id, values } };
      }
      const store = () => jobCompletion.storeJobCompletion(db, this.#store.dialect, job.id, completion, authorizedOn);
      // A finished build decides whose agents are current. An import's agents are not any
      // workspace's, but a token names its newest agent, which they may now be.
      const target = completion.build ? { workspaceId: completion.build.workspaceId } : completion.agents.length > 0 ? '*' : undefined;
      if (!target) return { stored: await store(), announced: Promise.resolve() };
      const { value: stored, announced } = await this.#store.changingAgentAuthsAnnouncing(target, store);
      return { stored, announced };
    });
  }

  /**
   * Ends a job that has not finished with an error (or none, for a cancel that was asked for).
   * A failed build's state is kept when given, so the next build can clean up. Returns whether
   * the job was still open.
   */
  async finishProvisionerJob(
    job: jobs.ProvisionerJobRow,
    outcome: { readonly error: string; readonly error_code: string },
    failedBuildState?: Buffer,
  ): Promise<boolean> {
    this.#require('update', orgScoped('provisioner_jobs', job.organization_id));
    if (failedBuildState) await jobCompletion.keepFailedBuildState(this.#db, job.id, failedBuildState);
    // The end of a stop or delete build's job ends the agents of the build before it.
    return this.#store.changingAgentAuths('*', () => jobs.finishJob(this.#db, job.id, this.#store.nowIso(), outcome));
  }

  /**
   * Jobs of every organization that stopped making progress, oldest update first, each with
   * whether its daemon still counts as alive (for the reaper). Reads daemons to tell.
   */
  async listStalledProvisionerJobs(cutoffs: jobs.StallCutoffs, live: jobs.DaemonLiveness, limit: number): Promise<jobs.ReapableJob[]> {
    this.#require('read', siteObject('provisioner_jobs'));
    this.#require('read', siteObject('provisioner_daemon'));
    return jobs.listStalledJobs(this.#db, cutoffs, live, limit);
  }

  /**
   * Started, unfinished jobs of every organization held by daemons whose ids begin with
   * `workerIdPrefix`: the built-in daemons of one replica, when it starts again.
   */
  async listOpenProvisionerJobsOfWorkers(workerIdPrefix: string, limit: number): Promise<jobs.StalledJob[]> {
    this.#require('read', siteObject('provisioner_jobs'));
    this.#require('read', siteObject('provisioner_daemon'));
    return jobs.listOpenJobsOfWorkers(this.#db, workerIdPrefix, limit);
  }

  /**
   * Fails a hung job with `error` and log lines saying why, in the stage it was last in; only if
   * nothing happened to it since it was selected (a late update saves the job). Returns whether
   * it was reaped.
   */
  async reapProvisionerJob(
    candidate: Pick<jobs.StalledJob, 'id' | 'started_at' | 'updated_at'>,
    error: string,
    lines: readonly string[],
  ): Promise<boolean> {
    this.#require('update', siteObject('provisioner_jobs'));
    const now = this.#store.nowIso();
    // As for finishProvisionerJob.
    return this.#store.changingAgentAuths('*', () =>
      this.#db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('provisioner_jobs')
          .set({ completed_at: now, updated_at: now, started_at: candidate.started_at ?? now, error })
          .where('id', '=', candidate.id)
          .where('completed_at', 'is', null)
          .where('updated_at', '=', candidate.updated_at)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) return false;
        const stage = (await jobs.lastLogStage(trx, candidate.id)) ?? 'Unknown';
        await jobs.insertJobLogs(
          trx,
          candidate.id,
          lines.map((output) => ({ created_at: now, source: 'provisioner_daemon', level: 'error', stage, output })),
        );
        return true;
      }),
    );
  }

  // Workspaces

  /** A workspace by id; a deleted one only when asked for (it is still authorized as it was). */
  async getWorkspace(id: string): Promise<workspaces.WorkspaceRow> {
    const row = isUuid(id) ? await workspaces.getWorkspaceById(this.#db, id) : undefined;
    if (!row) throw new NotFoundError('workspace');
    this.#require('read', workspaceRbac(row));
    return row;
  }

  /**
   * Workspaces by id (deleted or not) with their latest builds, read side by side for a single round
   * trip. Those the subject may read are `found`; the ids of those it may not are `refused`, with
   * nothing of them handed out; an id in neither names no workspace.
   */
  async getWorkspacesWithLatestBuilds(
    ids: readonly string[],
  ): Promise<{ found: Map<string, workspaces.WorkspaceWithLatestBuild>; refused: Set<string> }> {
    const valid = [...new Set(ids.filter(isUuid))];
    const found = new Map<string, workspaces.WorkspaceWithLatestBuild>();
    const refused = new Set<string>();
    for (const row of await workspaces.getWorkspacesWithLatestBuilds(this.#db, valid)) {
      if (this.can('read', workspaceRbac(row.workspace))) found.set(row.workspace.id, row);
      else refused.add(row.workspace.id);
    }
    return { found, refused };
  }

  /** A user's workspace by name. */
  async getWorkspaceByOwnerAndName(ownerId: string, name: string, includeDeleted: boolean): Promise<workspaces.WorkspaceRow> {
    const row = await workspaces.getWorkspaceByOwnerAndName(this.#db, ownerId, name, includeDeleted);
    if (!row) throw new NotFoundError('workspace');
    this.#require('read', workspaceRbac(row));
    return row;
  }

  /**
   * One page of the live workspaces the subject may read that pass the filter, by owner then name,
   * and how many pass in all: filtered, counted and paged in SQL.
   */
  async listWorkspaces(query: {
    readonly filter: workspaceLists.WorkspaceListFilter;
    readonly limit: number;
    readonly offset: number;
  }): Promise<{ rows: workspaces.WorkspaceRow[]; count: number }> {
    const allowed = listFilter(this.subject, 'read', 'workspace');
    return workspaceLists.listWorkspacePage(this.#db, this.#store.dialect, {
      allowed: (eb) => allowedRows(eb, allowed, { org: 'w.organization_id', owner: 'w.owner_id' }),
      filter: query.filter,
      page: { now: this.#store.clock.now(), limit: query.limit, offset: query.offset },
    });
  }

  /**
   * Decides whether the subject may create a workspace for `ownerId` from `template`: create in the
   * template's organization and use of the template. The grant is what {@link insertWorkspace}
   * takes, so the decision is made once. Refusals say which action was missing.
   */
  grantWorkspaceCreation(ownerId: string, template: templates.TemplateRow): WorkspaceCreationGrant {
    this.#require('create', orgScoped('workspace', template.organization_id, ownerId));
    this.#require('use', templateRbac(template));
    const grant: WorkspaceCreationGrant = Object.freeze({ ownerId, templateId: template.id, organizationId: template.organization_id });
    this.#grants.add(grant);
    return grant;
  }

  /**
   * Creates a workspace with its first build and that build's job, in one transaction, under a
   * grant this store made for the same owner and template. When the subject may read the new
   * workspace, and so its job's relations (see getJobRelations), also gives the organization's
   * daemons and queue, the new job in it, read in the same round trip: what the job's place in
   * the queue is counted from.
   */
  async insertWorkspace(
    grant: WorkspaceCreationGrant,
    row: workspaces.WorkspaceRow,
    first: workspaces.BuildInsert,
  ): Promise<workspaces.OrganizationQueue | undefined> {
    const granted =
      this.#grants.has(grant) &&
      grant.ownerId === row.owner_id &&
      grant.templateId === row.template_id &&
      grant.organizationId === row.organization_id;
    if (!granted) throw new NotAuthorizedError('create', 'workspace');
    // The workspace runs as its owner, with their git SSH key: making one for someone acts as them.
    await this.requireOutranks(row.owner_id, row.organization_id);
    const readQueue = this.can('read', workspaceRbac(row));
    return withConflicts(() => workspaces.insertWorkspace(this.#db, this.#store.dialect, row, first, readQueue));
  }

  /**
   * Decides whether the subject may queue a build of the workspace: starting and stopping need
   * `update`, deleting needs `delete`. The grant is what {@link insertBuild} takes.
   */
  grantBuild(workspace: workspaces.WorkspaceRow, transition: string): BuildGrant {
    this.#require(transition === 'delete' ? 'delete' : 'update', workspaceRbac(workspace));
    const grant: BuildGrant = Object.freeze({ transition, workspace });
    this.#grants.add(grant);
    return grant;
  }

  /**
   * Queues a build with its job (an orphan delete completes at once and deletes the workspace) in
   * one transaction, under a grant this store made for the same workspace and transition. Two
   * builds racing for the same number end with one 409 (ConflictError). When the subject may read
   * the workspace, also gives what the build's answer needs, read in the same round trip (see
   * insertWorkspace).
   */
  async insertBuild(grant: BuildGrant, insert: workspaces.BuildInsert): Promise<workspaces.NewBuildReads | undefined> {
    const granted =
      this.#grants.has(grant) && grant.workspace.id === insert.build.workspace_id && grant.transition === insert.build.transition;
    if (!granted) throw new NotAuthorizedError(insert.build.transition === 'delete' ? 'delete' : 'update', 'workspace');
    const { workspace } = grant;
    // A start runs the template's code as the owner, with their git SSH key: acting as them.
    if (insert.build.transition === 'start') await this.requireOutranks(workspace.owner_id, workspace.organization_id);
    const read = this.can('read', workspaceRbac(workspace));
    // A new latest build (or an orphan delete) ends the agents of the one before.
    return this.#store.changingAgentAuths({ workspaceId: workspace.id }, () =>
      withConflicts(() => workspaces.insertBuild(this.#db, this.#store.dialect, workspace, insert, read)),
    );
  }

  /** Throws NotAuthorizedError unless the subject may act on the workspace. */
  authorizeWorkspace(action: 'update' | 'delete' | 'read', workspace: workspaces.WorkspaceRow): void {
    this.#require(action, workspaceRbac(workspace));
  }

  /** Changes a workspace's own settings (name, schedule, TTL, favorite, dormancy, ...); needs `update`. */
  async updateWorkspace(
    workspace: workspaces.WorkspaceRow,
    changes: Partial<Omit<workspaces.WorkspaceRow, 'id'>>,
  ): Promise<workspaces.WorkspaceRow> {
    this.#require('update', workspaceRbac(workspace));
    // Its agents are authorized on its row as they found it (dormancy changes which object it is).
    await this.#store.changingAgentAuths({ workspaceId: workspace.id }, () =>
      withConflicts(() =>
        this.#db
          .updateTable('workspaces')
          .set({ ...changes, updated_at: this.#store.nowIso() })
          .where('id', '=', workspace.id)
          .execute(),
      ),
    );
    return (await workspaces.getWorkspaceById(this.#db, workspace.id)) ?? workspace;
  }

  /**
   * Records use of a workspace: `last_used_at` moves to now. Needs `update`, as the reference asks
   * for reporting use (it moves the deadline).
   */
  async touchWorkspace(workspace: workspaces.WorkspaceRow): Promise<void> {
    this.#require('update', workspaceRbac(workspace));
    await this.#db.updateTable('workspaces').set({ last_used_at: this.#store.nowIso() }).where('id', '=', workspace.id).execute();
  }

  /**
   * A page of a readable workspace's builds, newest first, paged in SQL; undefined when `afterId`
   * names no build of the workspace (within `since`).
   */
  async listWorkspaceBuilds(
    workspace: workspaces.WorkspaceRow,
    page: { readonly since?: string | undefined; readonly afterId?: string | undefined; readonly limit: number; readonly offset: number },
  ): Promise<workspaces.WorkspaceBuildRow[] | undefined> {
    this.#require('read', workspaceRbac(workspace));
    return workspaces.listBuildsPage(this.#db, workspace.id, { ...page, sqlite: this.#store.dialect === 'sqlite' });
  }

  /** A readable workspace's build by number. */
  async getWorkspaceBuildByNumber(workspace: workspaces.WorkspaceRow, buildNumber: number): Promise<workspaces.WorkspaceBuildRow> {
    this.#require('read', workspaceRbac(workspace));
    const build = await workspaces.getBuildByNumber(this.#db, workspace.id, buildNumber);
    if (!build) throw new NotFoundError('workspace build');
    return build;
  }

  /** The newest build of a readable workspace, with its job; undefined when it has none. */
  async getLatestBuild(
    workspace: workspaces.WorkspaceRow,
  ): Promise<{ build: workspaces.WorkspaceBuildRow; job: jobs.ProvisionerJobRow } | undefined> {
    this.#require('read', workspaceRbac(workspace));
    const latest = await workspaces.latestBuildWithJob(this.#db, workspace.id);
    return latest?.job ? { build: latest.build, job: latest.job } : undefined;
  }

  /** The newest build of each readable workspace, in one query. */
  async listLatestBuilds(rows: readonly workspaces.WorkspaceRow[]): Promise<Map<string, workspaces.WorkspaceBuildRow>> {
    for (const row of rows) this.#require('read', workspaceRbac(row));
    return workspaces.latestBuilds(
      this.#db,
      rows.map((w) => w.id),
    );
  }

  /** The job of a build of a readable workspace. */
  async getBuildJob(workspace: workspaces.WorkspaceRow, build: workspaces.WorkspaceBuildRow): Promise<jobs.ProvisionerJobRow> {
    this.#require('read', workspaceRbac(workspace));
    const job = build.workspace_id === workspace.id ? await jobs.getJobById(this.#db, build.job_id) : undefined;
    if (!job) throw new NotFoundError('provisioner job');
    return job;
  }

  /** Log lines of a build's job, ascending by id within (after, before); needs `read` on the workspace. */
  async listBuildLogs(
    workspace: workspaces.WorkspaceRow,
    build: workspaces.WorkspaceBuildRow,
    range: { readonly after?: number | undefined; readonly before?: number | undefined },
  ): Promise<jobs.ProvisionerJobLogRow[]> {
    this.#require('read', workspaceRbac(workspace));
    if (build.workspace_id !== workspace.id) throw new NotFoundError('workspace build');
    let query = this.#db.selectFrom('provisioner_job_logs').selectAll().where('job_id', '=', build.job_id);
    if (range.after !== undefined) query = query.where('id', '>', range.after);
    if (range.before !== undefined) query = query.where('id', '<', range.before);
    return query.orderBy('id').execute();
  }

  /** Moves (or lifts, with null) a build's deadline; needs `update` on the workspace. */
  async setBuildDeadline(workspace: workspaces.WorkspaceRow, build: workspaces.WorkspaceBuildRow, deadline: string | null): Promise<void> {
    this.#require('update', workspaceRbac(workspace));
    if (build.workspace_id !== workspace.id) throw new NotFoundError('workspace build');
    await workspaces.setBuildDeadline(this.#db, build.id, deadline);
  }

  /**
   * The template of a readable workspace, with its schedule and sharing rules: reading a workspace
   * shows the settings of its template, whether or not the template's own ACL lets the reader in.
   */
  async getWorkspaceTemplate(workspace: workspaces.WorkspaceRow): Promise<templates.TemplateRow> {
    this.#require('read', workspaceRbac(workspace));
    const template = await this.#db.selectFrom('templates').selectAll().where('id', '=', workspace.template_id).executeTakeFirst();
    if (!template) throw new NotFoundError('template');
    return template;
  }

  /** A version of a readable workspace's template (as {@link getWorkspaceTemplate}). */
  async getWorkspaceTemplateVersion(workspace: workspaces.WorkspaceRow, versionId: string): Promise<templates.TemplateVersionRow> {
    this.#require('read', workspaceRbac(workspace));
    const version = isUuid(versionId)
      ? await this.#db.selectFrom('template_versions').selectAll().where('id', '=', versionId).executeTakeFirst()
      : undefined;
    if (!version || version.template_id !== workspace.template_id) throw new NotFoundError('template version');
    return version;
  }

  /** The agents of a readable workspace's latest build, by name. */
  async listLatestBuildAgents(workspace: workspaces.WorkspaceRow): Promise<workspaces.WorkspaceAgentRow[]> {
    this.#require('read', workspaceRbac(workspace));
    return workspaces.listLatestBuildAgents(this.#db, workspace.id);
  }

  /** The agents of a build of a readable workspace, by name. */
  async listBuildAgents(workspace: workspaces.WorkspaceRow, build: workspaces.WorkspaceBuildRow): Promise<workspaces.WorkspaceAgentRow[]> {
    this.#require('read', workspaceRbac(workspace));
    if (build.workspace_id !== workspace.id) throw new NotFoundError('workspace build');
    return workspaces.listBuildAgents(this.#db, build);
  }

  /** How the scripts of a readable workspace's agents ran, oldest first. */
  async listScriptTimings(
    workspace: workspaces.WorkspaceRow,
    agentRows: readonly workspaces.WorkspaceAgentRow[],
  ): Promise<Database['workspace_agent_script_timings'][]> {
    this.#require('read', workspaceRbac(workspace));
    return workspaces.listScriptTimings(
      this.#db,
      agentRows.map((a) => a.id),
    );
  }

  /**
   * What the answers for these readable workspaces and their builds show besides the rows
   * themselves, in a fixed number of queries: owners, initiators, versions, jobs, resources,
   * agents and their reports, templates, organizations.
   */
  async listWorkspaceDetails(
    rows: readonly workspaces.WorkspaceRow[],
    builds: readonly workspaces.WorkspaceBuildRow[],
  ): Promise<workspaces.WorkspaceDetails> {
    for (const row of rows) this.#require('read', workspaceRbac(row));
    const readable = new Set(rows.map((row) => row.id));
    if (builds.some((build) => !readable.has(build.workspace_id))) throw new NotFoundError('workspace build');
    return workspaces.listWorkspaceDetails(this.#db, this.#store.dialect, rows, builds);
  }

  /**
   * Live workspaces the lifecycle executor may have to start, stop, make dormant or delete at
   * `tick` (a superset its rules decide on), among those the subject may read.
   */
  async listWorkspacesDueForLifecycle(tick: Date): Promise<workspaces.WorkspaceRow[]> {
    const rows = await workspaceLists.listWorkspacesDueForLifecycle(this.#db, this.#store.dialect, tick);
    return rows.filter((row) => this.can('read', workspaceRbac(row)));
  }

  /**
   * The latest builds (with jobs), templates and owner statuses of readable workspaces, for the
   * lifecycle executor's decisions; in a fixed number of queries.
   */
  async listLifecycleFacts(rows: readonly workspaces.WorkspaceRow[]): Promise<{
    builds: ReadonlyMap<string, workspaces.WorkspaceBuildRow>;
    jobs: ReadonlyMap<string, jobs.ProvisionerJobRow>;
    templates: ReadonlyMap<string, templates.TemplateRow>;
    ownerStatuses: ReadonlyMap<string, string>;
  }> {
    for (const row of rows) this.#require('read', workspaceRbac(row));
    const db = this.#db;
    const builds = await workspaces.latestBuilds(
      db,
      rows.map((w) => w.id),
    );
    const templateIds = [...new Set(rows.map((w) => w.template_id))];
    const ownerIds = [...new Set(rows.map((w) => w.owner_id))];
    const [jobRows, templateRows, owners] = await Promise.all([
      jobs.getJobsByIds(
        db,
        [...builds.values()].map((b) => b.job_id),
      ),
      templateIds.length === 0 ? [] : db.selectFrom('templates').selectAll().where('id', 'in', templateIds).execute(),
      ownerIds.length === 0 ? [] : db.selectFrom('users').select(['id', 'status']).where('id', 'in', ownerIds).execute(),
    ]);
    return {
      builds,
      jobs: new Map(jobRows.map((j) => [j.id, j])),
      templates: new Map(templateRows.map((t) => [t.id, t])),
      ownerStatuses: new Map(owners.map((u) => [u.id, u.status])),
    };
  }

  /** One build with its workspace. */
  async getWorkspaceBuild(id: string): Promise<{ build: workspaces.WorkspaceBuildRow; workspace: workspaces.WorkspaceRow }> {
    const build = isUuid(id) ? await workspaces.getBuildById(this.#db, id) : undefined;
    if (!build) throw new NotFoundError('workspace build');
    const workspace = await workspaces.getWorkspaceById(this.#db, build.workspace_id);
    if (!workspace) throw new NotFoundError('workspace');
    this.#require('read', workspaceRbac(workspace));
    return { build, workspace };
  }

  /**
   * Replaces a build's provisioner state. The state describes the template's infrastructure and
   * may hold its secrets, so this needs `update` on the workspace's template, as reading it does.
   */
  async setBuildProvisionerState(workspace: workspaces.WorkspaceRow, build: workspaces.WorkspaceBuildRow, state: Buffer): Promise<void> {
    this.#require('read', workspaceRbac(workspace));
    if (build.workspace_id !== workspace.id) throw new NotFoundError('workspace build');
    const template = await templates.getTemplateById(this.#db, workspace.template_id);
    if (!template) throw new NotFoundError('template');
    this.#require('update', templateRbac(template));
    await workspaces.setBuildProvisionerState(this.#db, build.id, state);
  }

  /** Asks a build's job to stop (see {@link cancelTemplateVersionJob}); needs `update` on the workspace. */
  async cancelWorkspaceBuildJob(
    workspace: workspaces.WorkspaceRow,
    job: jobs.ProvisionerJobRow,
    cancellation: jobs.JobCancellation,
  ): Promise<jobs.ProvisionerJobRow> {
    this.#require('update', workspaceRbac(workspace));
    return this.#cancelJob(job, cancellation);
  }

  /** The ports a readable workspace shares, by port. */
  async listPortShares(workspace: workspaces.WorkspaceRow): Promise<Database['workspace_port_shares'][]> {
    this.#require('read', workspaceRbac(workspace));
    return this.#db
      .selectFrom('workspace_port_shares')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .orderBy('port')
      .orderBy('agent_name')
      .execute();
  }

  /** Shares a port (or changes how), keyed by agent and port; needs `update` on the workspace. */
  async upsertPortShare(workspace: workspaces.WorkspaceRow, share: Database['workspace_port_shares']): Promise<void> {
    this.#require('update', workspaceRbac(workspace));
    await this.#db
      .insertInto('workspace_port_shares')
      .values(share)
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'agent_name', 'port']).doUpdateSet({ share_level: share.share_level, protocol: share.protocol }),
      )
      .execute();
  }

  /** Stops sharing a port; returns whether there was a share. */
  async deletePortShare(workspace: workspaces.WorkspaceRow, agentName: string, port: number): Promise<boolean> {
    this.#require('update', workspaceRbac(workspace));
    const result = await this.#db
      .deleteFrom('workspace_port_shares')
      .where('workspace_id', '=', workspace.id)
      .where('agent_name', '=', agentName)
      .where('port', '=', port)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  // Workspace agents

  /** An agent with its resource, build and workspace; needs `read` on the workspace. */
  async getWorkspaceAgent(id: string): Promise<agents.AgentWithOwners> {
    const found = isUuid(id) ? await agents.getAgentById(this.#db, id) : undefined;
    if (!found) throw new NotFoundError('workspace agent');
    this.#require('read', workspaceRbac(found.workspace));
    return found;
  }

  /**
   * Throws unless the subject may reach into the agent's workspace: terminals, SSH, port forwarding
   * and other relay streams (`ssh` on the workspace). Reading the agent is checked first, so a
   * workspace the subject cannot see stays not found.
   */
  authorizeAgentConnect(found: agents.AgentWithOwners): void {
    this.#require('read', workspaceRbac(found.workspace));
    this.#require('ssh', workspaceRbac(found.workspace));
  }

  /** An agent's log lines, ascending by id within (after, before); needs `read` on its workspace. */
  async listWorkspaceAgentLogs(
    found: agents.AgentWithOwners,
    range: { readonly after?: number | undefined; readonly before?: number | undefined },
  ): Promise<agents.AgentLogRow[]> {
    this.#require('read', workspaceRbac(found.workspace));
    return agents.listAgentLogs(this.#db, found.agent.id, range);
  }

  /**
   * The agent whose token hashes to `hash`, with what it belongs to; undefined when none has it.
   * Needs `read` on its workspace.
   */
  async getWorkspaceAgentByTokenHash(hash: string): Promise<agents.AgentWithOwners | undefined> {
    const found = await agents.getAgentByTokenHash(this.#db, hash);
    if (found) this.#require('read', workspaceRbac(found.workspace));
    return found;
  }

  /**
   * The agent whose token hashes to `hash`, and whether it may still act for its workspace (see
   * `isWorkspaceAgentBuildCurrent`); undefined when no agent has that token. With `cached`, an
   * agent that a recent lookup found current comes from the cache without a query: its rows are
   * then as they were at that lookup, which serves routes that need only who the agent is and
   * what it belongs to. Every lookup refreshes the cache. Needs `read` on the agent's workspace.
   */
  async authenticateWorkspaceAgent(
    hash: string,
    options: { readonly cached: boolean },
  ): Promise<{ readonly found: agents.AgentWithOwners; readonly current: boolean } | undefined> {
    const cache = this.#store.agentAuths;
    if (options.cached) {
      const found = cache.get(hash, this.#store.clock.now().getTime());
      if (found) {
        this.#require('read', workspaceRbac(found.workspace));
        return { found, current: true };
      }
    }
    const generation = cache.generation;
    const found = await this.getWorkspaceAgentByTokenHash(hash);
    if (!found) return undefined;
    const current = await this.isWorkspaceAgentBuildCurrent(found);
    if (current) cache.set(hash, found, this.#store.clock.now().getTime(), generation);
    return { found, current };
  }

  /**
   * Whether the agent may still act for its workspace: its build is the newest of a live workspace,
   * or the newest is the unfinished stop or delete that is shutting it down. Needs `read`.
   */
  async isWorkspaceAgentBuildCurrent(found: agents.AgentWithOwners): Promise<boolean> {
    this.#require('read', workspaceRbac(found.workspace));
    return agents.agentBuildIsCurrent(this.#db, found.workspace.id, found.build.id);
  }

  /** Whether the agent's build is the newest build of its workspace, which is not deleted; needs `read`. */
  async isWorkspaceAgentBuildLatest(found: agents.AgentWithOwners): Promise<boolean> {
    this.#require('read', workspaceRbac(found.workspace));
    return agents.isLatestLiveBuild(this.#db, found.workspace.id, found.build.id);
  }

  /** The agent's row as it is now; undefined once it is gone. Needs `read` on its workspace. */
  async getWorkspaceAgentRow(found: agents.AgentWithOwners): Promise<agents.AgentRow | undefined> {
    this.#require('read', workspaceRbac(found.workspace));
    return agents.getAgentRow(this.#db, found.agent.id);
  }

  /** Records what an agent reports of itself (connection, startup, lifecycle, app health, stats); needs `update`. */
  async updateWorkspaceAgentReport(found: agents.AgentWithOwners, report: agents.AgentReport): Promise<void> {
    this.#require('update', workspaceRbac(found.workspace));
    await agents.updateAgent(this.#db, found.agent.id, report);
  }

  /**
   * Marks the agent disconnected as its socket on the replica at `relayUrl` closes, unless it has
   * already reconnected through another replica, which now holds it. Needs `update`.
   */
  async markWorkspaceAgentDisconnected(found: agents.AgentWithOwners, relayUrl: string): Promise<void> {
    this.#require('update', workspaceRbac(found.workspace));
    await agents.markAgentDisconnected(this.#db, found.agent.id, relayUrl, this.#store.nowIso());
  }

  /** Records how one of the agent's scripts ran; needs `update` on its workspace. */
  async insertWorkspaceAgentScriptTiming(
    found: agents.AgentWithOwners,
    timing: Omit<agents.AgentScriptTimingRow, 'agent_id'>,
  ): Promise<void> {
    this.#require('update', workspaceRbac(found.workspace));
    await agents.insertScriptTiming(this.#db, { ...timing, agent_id: found.agent.id });
  }

  /**
   * Stores a batch of the agent's logs, all or nothing, against its limit (see
   * `agents.appendAgentLogs`); throws NotFoundError when the agent is gone. Needs `update`.
   */
  async appendWorkspaceAgentLogs(found: agents.AgentWithOwners, batch: agents.AgentLogBatch): Promise<agents.AgentLogAppendOutcome> {
    this.#require('update', workspaceRbac(found.workspace));
    const outcome = await this.#store.agentLogWriter.append(found.agent.id, batch);
    if (!outcome) throw new NotFoundError('workspace agent');
    return outcome;
  }

  /** Records a source of the agent's logs, or renames it (it keeps its creation time); needs `update`. */
  async upsertWorkspaceAgentLogSource(found: agents.AgentWithOwners, source: Omit<agents.AgentLogSourceRow, 'agent_id'>): Promise<void> {
    this.#require('update', workspaceRbac(found.workspace));
    await agents.upsertLogSource(this.#db, { ...source, agent_id: found.agent.id });
  }

  /** Records what the agent says one of its apps is doing; needs `update` on its workspace. */
  async insertWorkspaceAppStatus(
    found: agents.AgentWithOwners,
    status: Omit<appStatuses.AppStatusRow, 'agent_id' | 'workspace_id'>,
  ): Promise<void> {
    this.#require('update', workspaceRbac(found.workspace));
    await appStatuses.insertAppStatus(this.#db, { ...status, agent_id: found.agent.id, workspace_id: found.workspace.id });
  }

  /**
   * The newest agent on a cloud instance, with the type of the job that made it and, for a
   * workspace build's agent, what it belongs to; undefined when none has that instance id. Needs
   * `read` on the agent's workspace, or on the organization's jobs for an agent of another job.
   */
  async findWorkspaceAgentByInstanceId(instanceId: string): Promise<agents.InstanceAgent | undefined> {
    const found = await agents.getNewestAgentByInstanceId(this.#db, instanceId);
    if (!found) return undefined;
    this.#require('read', found.owners ? workspaceRbac(found.owners.workspace) : orgScoped('provisioner_jobs', found.organizationId));
    return found;
  }

  /** Replaces the hash of the agent's token, so the token issued last is the one that works; needs `update`. */
  async replaceWorkspaceAgentToken(found: agents.AgentWithOwners, tokenHash: string): Promise<void> {
    this.#require('update', workspaceRbac(found.workspace));
    await this.#store.changingAgentAuths({ workspaceId: found.workspace.id }, () =>
      agents.updateAgent(this.#db, found.agent.id, { auth_token_hash: tokenHash }),
    );
  }

  /** The agents of a readable workspace's newest build, by name. */
  async listAgentsOfLatestBuild(workspace: workspaces.WorkspaceRow): Promise<agents.AgentRow[]> {
    this.#require('read', workspaceRbac(workspace));
    return agents.listAgentsOfLatestBuild(this.#db, workspace.id);
  }

  /** How a readable workspace shares one port of one of its agents; undefined when it does not. */
  async getPortShare(workspace: workspaces.WorkspaceRow, agentName: string, port: number): Promise<portShares.PortShareRow | undefined> {
    this.#require('read', workspaceRbac(workspace));
    return portShares.getPortShare(this.#db, workspace.id, agentName, port);
  }

  /** `owner/workspace.agent` names of these agents, for those in workspaces the subject may read (filtered in SQL). */
  async listWorkspaceAgentLabels(agentIds: readonly string[]): Promise<agents.AgentLabel[]> {
    return agents.listAgentLabels(this.#db, agentIds, listFilter(this.subject, 'read', 'workspace'));
  }

  #require(action: Action, object: RbacObject): void {
    if (!authorize(this.subject, action, object)) throw new NotAuthorizedError(action, object.type);
  }
}

function notFound(what: string): never {
  throw new NotFoundError(what);
}
