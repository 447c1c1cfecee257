import type { Subject } from '../rbac/index.js';
import type { ApiKeyRow } from './queries/api-keys.js';
import type { UserRow } from './queries/users.js';

/** A signed-in caller as the authentication path last loaded them. */
export interface CachedSession {
  readonly apiKey: ApiKeyRow;
  readonly user: UserRow;
  readonly subject: Subject;
  /** The secret that was checked against the stored hash, so later requests need not hash again. */
  readonly verifiedSecret?: string;
}

const MAX_ENTRIES = 10_000;

/**
 * Authenticated sessions by API key id, so that a request with a known token costs no query.
 * Every write that changes what a session may do (a deleted key, a changed user, membership or
 * role) must invalidate through `Store.invalidateSessions`, which also tells other replicas. The
 * time-to-live only bounds how long a missed invalidation could matter.
 */
export class SessionCache {
  readonly #entries = new Map<string, { readonly session: CachedSession; readonly loadedAt: number }>();
  /** Loads under way, by key id: the requests a page sends at once with a session not cached yet share one. */
  readonly #loading = new Map<string, Promise<CachedSession | undefined>>();
  readonly #ttlMs: number;

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  get(keyId: string, nowMs: number): CachedSession | undefined {
    const entry = this.#entries.get(keyId);
    if (!entry) return undefined;
    if (nowMs - entry.loadedAt > this.#ttlMs || nowMs < entry.loadedAt) {
      this.#entries.delete(keyId);
      return undefined;
    }
    return entry.session;
  }

  set(session: CachedSession, nowMs: number): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(session.apiKey.id, { session, loadedAt: nowMs });
  }

  /**
   * The session of `keyId` as `load` reads it, read once for every caller that asks while it is
   * being read: a dashboard asks for five things at once with a session this replica has not seen
   * (after sign-in, or a restart), and 800 people doing so at once each cost five reads of the key,
   * the user and the subject instead of one (the scale bench's first seconds, p95 over 3 s).
   */
  load(keyId: string, load: () => Promise<CachedSession | undefined>): Promise<CachedSession | undefined> {
    let loading = this.#loading.get(keyId);
    if (!loading) {
      loading = load().finally(() => {
        if (this.#loading.get(keyId) === loading) this.#loading.delete(keyId);
      });
      this.#loading.set(keyId, loading);
    }
    return loading;
  }

  /** Forgets one key, every key of one user, or (`*`) everything. */
  invalidate(target: { readonly keyId?: string; readonly userId?: string } | '*'): void {
    // A load under way may have read what changed: callers from now on read again.
    this.#loading.clear();
    if (target === '*') {
      this.#entries.clear();
      return;
    }
    if (target.keyId) this.#entries.delete(target.keyId);
    if (target.userId) {
      for (const [keyId, entry] of this.#entries) if (entry.session.user.id === target.userId) this.#entries.delete(keyId);
    }
  }
}
