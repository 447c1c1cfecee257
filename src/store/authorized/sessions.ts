import { StoreFamily } from './store-family.js';
import { type CachedSession } from '../session-cache.js';
import { loadUserSubject, type SubjectOptions } from '../subjects.js';
import { apiKeyObject, userObject } from '../../rbac/index.js';
import * as apiKeys from '../queries/api-keys.js';
import * as users from '../queries/users.js';

/** Sessions of API keys, as authentication reads them. */
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
    return this.getCached(keyId, now) ?? this.#authorizedSession(await this.#loadSession(keyId, options));
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
}
