import { StoreFamily } from './store-family.js';
import { type CachedSession } from '../session-cache.js';
import { loadUserSubject, type SubjectOptions } from '../subjects.js';
import { apiKeyObject, userObject } from '../../rbac/index.js';
import { withConflicts } from '../db-errors.js';
import type { AuditChange } from '../audit/audit-request.js';
import * as apiKeys from '../queries/api-keys.js';
import * as users from '../queries/users.js';
import { NotFoundError } from '../../lib/errors.js';

/** A sign-in's or sign-out's audit entry: the session's key, named by its user. */
function sessionChange(
  action: 'login' | 'logout' | 'register',
  key: apiKeys.ApiKeyRow,
  user: users.UserRow,
  statusCode?: number,
): AuditChange {
  return {
    resourceType: 'api_key',
    action,
    resourceId: key.id,
    resourceTarget: user.username,
    userId: user.id,
    // Only what the reference tracks of a key: whose it is and its times.
    ...(action === 'logout' ? { old: trackedKeyFields(key) } : { new: trackedKeyFields(key) }),
    ...(statusCode === undefined ? {} : { statusCode }),
  };
}

function trackedKeyFields(key: apiKeys.ApiKeyRow): object {
  return { user_id: key.user_id, last_used: key.last_used, expires_at: key.expires_at, created_at: key.created_at };
}

/** Sessions of API keys: signing in and out, and what authentication reads of them. */
export class SessionStore extends StoreFamily {
  /**
   * Cached sessions this store was allowed to read. A cached session never changes (a changed key
   * or user is a new one) and the subject is fixed, so the decision holds: a long-lived store (the
   * authenticator's) decides it once per session rather than on every request.
   */
  #sessionsShown: WeakSet<CachedSession> | undefined;

  /**
   * The session of an API key: the cached one, else the key, its user and the user's subject as
   * stored now. Undefined when the key or its live user does not exist. Needs read on both.
   */
  async get(keyId: string, now: Date, options: SubjectOptions): Promise<CachedSession | undefined> {
    return (
      this.getCached(keyId, now) ?? this.#authorizedSession(await this.store.sessions.load(keyId, () => this.#loadSession(keyId, options)))
    );
  }

  /**
   * The session of a key from the cache alone, without waiting: most requests present a key that
   * a recent request loaded. Undefined when it is not cached; needs read on the key and its user.
   */
  getCached(keyId: string, now: Date): CachedSession | undefined {
    return this.#authorizedSession(this.store.sessions.get(keyId, now.getTime()));
  }

  #authorizedSession(session: CachedSession | undefined): CachedSession | undefined {
    if (!session || this.#sessionsShown?.has(session)) return session;
    this.require('read', apiKeyObject(session.apiKey.user_id, session.apiKey.id));
    this.require('read', userObject(session.user.id));
    (this.#sessionsShown ??= new WeakSet()).add(session);
    return session;
  }

  async #loadSession(keyId: string, options: SubjectOptions): Promise<CachedSession | undefined> {
    const apiKey = await apiKeys.getApiKeyById(this.db, keyId);
    const user = apiKey ? await users.getUserById(this.db, apiKey.user_id) : undefined;
    if (!apiKey || !user) return undefined;
    const scope = apiKey.scope === 'application_connect' ? 'application_connect' : 'all';
    return { apiKey, user, subject: await loadUserSubject(this.db, user, scope, options) };
  }

  /** Keeps a verified session so that the next request with its key costs no query; needs read on the key. */
  remember(session: CachedSession, now: Date): void {
    this.require('read', apiKeyObject(session.apiKey.user_id, session.apiKey.id));
    this.store.sessions.set(session, now.getTime());
  }

  /** Records a key's use: when and from where, and a refreshed expiry. Needs `update` on the key. */
  async recordUse(
    apiKey: apiKeys.ApiKeyRow,
    changes: Partial<Pick<apiKeys.ApiKeyRow, 'last_used' | 'ip_address' | 'expires_at' | 'updated_at'>>,
  ): Promise<void> {
    this.require('update', apiKeyObject(apiKey.user_id, apiKey.id));
    await apiKeys.updateApiKey(this.db, apiKey.id, changes);
  }

  /**
   * Starts a session: stores the new key of the user who signed in, with its audit entry (`login`,
   * or `register` for an account the sign-in created) in the same transaction. Needs `create` on
   * the user's keys. `statusCode` is the answer's when it is not one the API's hook sees (a
   * provider's callback redirects).
   */
  async signIn(
    key: apiKeys.ApiKeyRow,
    user: users.UserRow,
    options: { readonly registered?: boolean; readonly statusCode?: number } = {},
  ): Promise<apiKeys.ApiKeyRow> {
    this.require('create', apiKeyObject(user.id));
    if (key.user_id !== user.id) throw new NotFoundError('user');
    return this.audited(
      (trx) => withConflicts(() => apiKeys.insertApiKey(trx, key)),
      (inserted) => sessionChange(options.registered ? 'register' : 'login', inserted, user, options.statusCode),
    );
  }

  /**
   * Ends the caller's session: deletes its key and every key that app hosts were handed for the
   * user (scope `application_connect`), so that no subdomain app stays signed in after the
   * dashboard is not, and writes the `logout` entry in the same transaction. Needs `delete` on the
   * user's keys.
   */
  async signOut(user: users.UserRow, keyId: string): Promise<void> {
    const key = await apiKeys.getApiKeyById(this.db, keyId);
    if (!key || key.user_id !== user.id) throw new NotFoundError('api key');
    this.require('delete', apiKeyObject(user.id, key.id));
    await this.audited(
      (trx) =>
        trx
          .deleteFrom('api_keys')
          .where('user_id', '=', user.id)
          .where((eb) => eb.or([eb('id', '=', key.id), eb('scope', '=', 'application_connect')]))
          .execute(),
      () => sessionChange('logout', key, user),
    );
    // By user: the app keys' connections are this user's too, and each is checked again.
    await this.store.invalidateSessions({ userId: user.id });
  }
}
