import type { Kysely } from 'kysely';
import { userObject } from '../../rbac/index.js';
import * as queries from '../queries/external-auth.js';
import { externalAuthLinkRbac } from '../rbac-objects.js';
import type { Database } from '../schema.js';
import type { StoreServices } from '../store-services.js';
import { StoreFamily } from './store-family.js';

/** The tokens a link keeps, as the store hands them out: opened, whatever the cipher. */
export interface ExternalAuthTokens {
  readonly accessToken: string;
  /** Empty when the provider gave none. */
  readonly refreshToken: string;
  /** Null when the access token does not expire. */
  readonly expiry: Date | null;
  readonly extra: Readonly<Record<string, unknown>>;
}

/** A user's link to a provider, its tokens opened. */
export interface ExternalAuthLinkRecord extends ExternalAuthTokens {
  readonly providerId: string;
  readonly userId: string;
  /** Why the link must be made again; empty while it works. */
  readonly validateError: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What a link is, without its tokens: enough to say whether it works. */
export interface ExternalAuthLinkStatus {
  readonly providerId: string;
  readonly validateError: string;
  readonly expiry: Date | null;
  readonly hasRefreshToken: boolean;
}

/** What a freshening decided: new tokens to keep, a reason to link again, or nothing to change. */
export type FreshenOutcome =
  | { readonly kind: 'tokens'; readonly tokens: ExternalAuthTokens }
  | { readonly kind: 'relink'; readonly reason: string }
  | { readonly kind: 'keep' };

/**
 * Freshenings under way in this process, per opened store and link: one refresh at a time per link
 * here, whatever the database (the row lock below adds the other replicas on PostgreSQL).
 */
const localLocks = new WeakMap<StoreServices, Map<string, Promise<unknown>>>();

/**
 * Users' links to external auth providers and the link flows under way. A link is its user's
 * personal data, as the reference's authorizer treats it: read and changed with `read_personal` and
 * `update_personal` on that user (a workspace agent, acting for its owner, may read the owner's).
 */
export class ExternalAuthStore extends StoreFamily {
  /** A user's links; needs `read_personal` on the user. */
  async list(userId: string): Promise<ExternalAuthLinkRecord[]> {
    this.require('read_personal', externalAuthLinkRbac(userId));
    const rows = await queries.listExternalAuthLinks(this.db, userId);
    return rows.map((row) => this.#open(row));
  }

  /** A user's link to one provider, or undefined; needs `read_personal` on the user. */
  async get(providerId: string, userId: string): Promise<ExternalAuthLinkRecord | undefined> {
    this.require('read_personal', externalAuthLinkRbac(userId));
    const row = await queries.getExternalAuthLink(this.db, providerId, userId);
    return row ? this.#open(row) : undefined;
  }

  /**
   * Whether a user's links work, without their tokens; needs `read` on the user. Whoever may create
   * a workspace for a user is told which providers that user still has to link, and nothing more.
   */
  async statuses(userId: string): Promise<ExternalAuthLinkStatus[]> {
    this.require('read', userObject(userId));
    const rows = await queries.listExternalAuthLinks(this.db, userId);
    return rows.map((row) => ({
      providerId: row.provider_id,
      validateError: row.validate_error,
      expiry: row.oauth_expiry ? new Date(row.oauth_expiry) : null,
      hasRefreshToken: row.oauth_refresh_token !== '',
    }));
  }

  /** Links a user to a provider with the tokens it gave (replacing an earlier link); needs `update_personal`. */
  async save(providerId: string, userId: string, tokens: ExternalAuthTokens): Promise<void> {
    this.require('update_personal', externalAuthLinkRbac(userId));
    const now = this.store.nowIso();
    await queries.upsertExternalAuthLink(this.db, {
      provider_id: providerId,
      user_id: userId,
      ...this.#sealTokens(tokens),
      validate_error: '',
      created_at: now,
      updated_at: now,
    });
  }

  /** Removes a user's link and returns what it was, or undefined when there was none; needs `update_personal`. */
  async delete(providerId: string, userId: string): Promise<ExternalAuthLinkRecord | undefined> {
    this.require('update_personal', externalAuthLinkRbac(userId));
    const row = await queries.getExternalAuthLink(this.db, providerId, userId);
    if (!row) return undefined;
    return (await queries.deleteExternalAuthLink(this.db, providerId, userId)) ? this.#open(row) : undefined;
  }

  /**
   * Keeps a link's token current: runs `decide` on the link as it is once this caller holds it
   * alone, and stores what it decides. One caller at a time per link: in this process by a lock,
   * and on PostgreSQL across replicas by holding the link's row (`FOR UPDATE`) until the decision
   * is stored, so a second replica reads the token the first one got rather than refreshing again.
   * Needs `read_personal` on the user only: a refresh keeps the same link working and changes
   * nothing the user decided, so whoever may read the token may have it kept fresh (the
   * workspace agent among them). Returns the link as stored afterwards, or undefined when there is none.
   */
  async freshen(
    providerId: string,
    userId: string,
    decide: (link: ExternalAuthLinkRecord) => Promise<FreshenOutcome>,
  ): Promise<ExternalAuthLinkRecord | undefined> {
    this.require('read_personal', externalAuthLinkRbac(userId));
    return this.#locally(`${providerId}\u0000${userId}`, () =>
      this.store.dialect === 'postgres'
        ? this.db.transaction().execute(async (trx) => {
            const row = await queries.getExternalAuthLink(trx, providerId, userId, { forUpdate: true });
            if (!row) return undefined;
            return this.#apply(trx, row, await decide(this.#open(row)));
          })
        : (async () => {
            const row = await queries.getExternalAuthLink(this.db, providerId, userId);
            if (!row) return undefined;
            return this.#apply(this.db, row, await decide(this.#open(row)));
          })(),
    );
  }

  /** Records a link flow the user started; needs `update_personal` on that user. */
  async startFlow(row: queries.ExternalAuthStateRow): Promise<void> {
    this.require('update_personal', externalAuthLinkRbac(row.user_id));
    await queries.insertExternalAuthState(this.db, row, this.store.nowIso());
  }

  /**
   * Takes (once) the link flow of `stateHash` when `userId` started it; undefined for a state that
   * is unknown, used, or another user's. Needs `update_personal` on the user.
   */
  async takeFlow(stateHash: string, userId: string): Promise<queries.ExternalAuthStateRow | undefined> {
    this.require('update_personal', externalAuthLinkRbac(userId));
    return queries.takeExternalAuthState(this.db, stateHash, userId);
  }

  async #apply(db: Kysely<Database>, row: queries.ExternalAuthLinkRow, outcome: FreshenOutcome): Promise<ExternalAuthLinkRecord> {
    if (outcome.kind === 'keep') return this.#open(row);
    const changes =
      outcome.kind === 'tokens'
        ? { ...this.#sealTokens(outcome.tokens), validate_error: '', updated_at: this.store.nowIso() }
        : { validate_error: outcome.reason, updated_at: this.store.nowIso() };
    await queries.updateExternalAuthLink(db, row.provider_id, row.user_id, changes);
    return this.#open({ ...row, ...changes });
  }

  #sealTokens(tokens: ExternalAuthTokens) {
    const access = this.store.tokenCipher.seal(tokens.accessToken);
    const refresh = this.store.tokenCipher.seal(tokens.refreshToken);
    return {
      oauth_access_token: access.value,
      oauth_access_token_key_id: access.keyId,
      oauth_refresh_token: refresh.value,
      oauth_refresh_token_key_id: refresh.keyId,
      oauth_expiry: tokens.expiry ? tokens.expiry.toISOString() : null,
      oauth_extra: JSON.stringify(tokens.extra),
    };
  }

  #open(row: queries.ExternalAuthLinkRow): ExternalAuthLinkRecord {
    const cipher = this.store.tokenCipher;
    let extra: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(row.oauth_extra);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) extra = parsed as Record<string, unknown>;
    } catch {
      // A column that is not an object keeps no extra fields.
    }
    return {
      providerId: row.provider_id,
      userId: row.user_id,
      accessToken: cipher.open({ value: row.oauth_access_token, keyId: row.oauth_access_token_key_id }),
      refreshToken: cipher.open({ value: row.oauth_refresh_token, keyId: row.oauth_refresh_token_key_id }),
      expiry: row.oauth_expiry ? new Date(row.oauth_expiry) : null,
      extra,
      validateError: row.validate_error,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  /** Runs `work` after the freshenings of the same key this process started before it. */
  async #locally<T>(key: string, work: () => Promise<T>): Promise<T> {
    let locks = localLocks.get(this.store);
    if (!locks) {
      locks = new Map();
      localLocks.set(this.store, locks);
    }
    const before = locks.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    locks.set(key, settled);
    try {
      return await mine;
    } finally {
      if (locks.get(key) === settled) locks.delete(key);
    }
  }
}
