import type { Kysely } from 'kysely';
import { NotAuthorizedError, NotFoundError } from '../../lib/errors.js';
import { OutrankedError } from '../../lib/outranked-error.js';
import { authorize, rolesBeyondReach, type Action, type RbacObject, type Subject } from '../../rbac/index.js';
import { parseStringArray } from '../json-column.js';
import * as users from '../queries/users.js';
import type { Database } from '../schema.js';
import type { StoreServices } from '../store-services.js';
import type { AuditChange, AuditRequest } from '../audit/audit-request.js';
import { auditRow, writeAudited } from '../audit/write-audited.js';
import { insertAuditLogs } from '../queries/audit-log-batch.js';

/**
 * What every family of one authorizing store shares: the subject, the database view, and the
 * checks. One scope per authorizing store, so a grant one family makes another can take.
 */
export class StoreScope {
  readonly store: StoreServices;
  readonly db: Kysely<Database>;
  readonly subject: Subject;
  /** The request this store serves, for the audit entries of its changes; absent for system work. */
  readonly auditRequest: AuditRequest | undefined;
  /** Grants this store made: a write that takes one checks it came from here, and decides nothing again. */
  #grantsMade: WeakSet<object> | undefined;

  constructor(store: StoreServices, subject: Subject, db: Kysely<Database>, auditRequest?: AuditRequest) {
    this.store = store;
    this.subject = subject;
    this.db = db;
    this.auditRequest = auditRequest;
  }

  /**
   * Runs `change` on a transaction and writes the audit entry `describe` makes of its result in
   * the same transaction (see audit/write-audited.ts); `describe` may answer undefined when there
   * turned out to be nothing to record.
   */
  audited<T>(change: (db: Kysely<Database>) => Promise<T>, describe: (result: T) => AuditChange | undefined): Promise<T> {
    return writeAudited(
      this.db,
      { request: this.auditRequest, subject: this.subject, now: this.store.nowIso(), eventExport: this.store.eventExport },
      change,
      describe,
    );
  }

  /**
   * As {@link audited}, for a change of many resources at once (system work such as marking idle
   * users dormant): one entry for each change `describe` lists, all in the change's transaction.
   */
  auditedEach<T>(change: (db: Kysely<Database>) => Promise<T>, describe: (result: T) => readonly AuditChange[]): Promise<T> {
    const run = async (trx: Kysely<Database>): Promise<T> => {
      const result = await change(trx);
      const source = { request: this.auditRequest, subject: this.subject, now: this.store.nowIso() };
      await insertAuditLogs(
        trx,
        describe(result).map((described) => auditRow(source, described)),
      );
      return result;
    };
    return this.db.isTransaction ? run(this.db) : this.db.transaction().execute(run);
  }

  // Made on first use: most stores live for one request and never need it.
  get grants(): WeakSet<object> {
    return (this.#grantsMade ??= new WeakSet());
  }

  /** Whether the subject may perform `action` on `object`. */
  can(action: Action, object: RbacObject): boolean {
    return authorize(this.subject, action, object);
  }

  /** Throws NotAuthorizedError unless the subject may perform `action` on `object`. */
  require(action: Action, object: RbacObject): void {
    if (!authorize(this.subject, action, object)) throw new NotAuthorizedError(action, object.type);
  }

  /**
   * Throws OutrankedError unless the subject could assign every role the user holds: their site
   * roles, and with `organizationId` their roles in that organization. Whoever could change the
   * password, sign-in, keys or roles of a user above them could sign in as that user, so every
   * method that changes a user, their keys or memberships, or makes a workspace that runs as them
   * asks this after its own permission check. Domain rules that look at the user ask it first, so
   * that no answer depending on the target (such as "new password cannot match old") reaches a
   * caller below them. Acting on oneself, and system work, are not ranked.
   */
  async requireOutranks(user: users.UserRow | string, organizationId?: string): Promise<void> {
    const userId = typeof user === 'string' ? user : user.id;
    if (userId === this.subject.id || this.subject.type === 'system') return;
    const row = typeof user === 'string' ? await users.getUserById(this.db, user) : user;
    if (!row) throw new NotFoundError('user');
    const site = parseStringArray(row.rbac_roles);
    let beyond: string[];
    if (organizationId === undefined) {
      beyond = rolesBeyondReach(this.subject, { site });
    } else {
      const membership = await this.db
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
}

/**
 * One resource family's methods of the authorizing store. Each method checks the subject's right
 * on the rows it reads or writes (or filters a list in SQL) before it returns anything, with the
 * check written next to the query.
 */
export abstract class StoreFamily {
  readonly #scope: StoreScope;

  constructor(scope: StoreScope) {
    this.#scope = scope;
  }

  protected get store(): StoreServices {
    return this.#scope.store;
  }

  protected get db(): Kysely<Database> {
    return this.#scope.db;
  }

  protected get subject(): Subject {
    return this.#scope.subject;
  }

  protected get grants(): WeakSet<object> {
    return this.#scope.grants;
  }

  protected can(action: Action, object: RbacObject): boolean {
    return this.#scope.can(action, object);
  }

  protected require(action: Action, object: RbacObject): void {
    this.#scope.require(action, object);
  }

  /**
   * Runs a change and its audit entry in one transaction: every statement of `change` runs on the
   * handle it is given. Every method that changes what the audit log covers writes through this.
   */
  protected audited<T>(change: (db: Kysely<Database>) => Promise<T>, describe: (result: T) => AuditChange | undefined): Promise<T> {
    return this.#scope.audited(change, describe);
  }

  /** One entry for each change of a change of many resources; see StoreScope.auditedEach. */
  protected auditedEach<T>(change: (db: Kysely<Database>) => Promise<T>, describe: (result: T) => readonly AuditChange[]): Promise<T> {
    return this.#scope.auditedEach(change, describe);
  }

  protected requireOutranks(user: users.UserRow | string, organizationId?: string): Promise<void> {
    return this.#scope.requireOutranks(user, organizationId);
  }
}

/** Throws NotFoundError, for an expression that must yield a row. */
export function notFound(what: string): never {
  throw new NotFoundError(what);
}
