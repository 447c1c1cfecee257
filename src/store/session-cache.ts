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

  /** Forgets one key, every key of one user, or (`*`) everything. */
  invalidate(target: { readonly keyId?: string; readonly userId?: string } | '*'): void {
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
