import type { AuthorizedStore } from '../store/authorized-store.js';

/**
 * Marks active users who have not been seen for `thresholdMs` as dormant and returns how many.
 * `store` is the user-dormancy subject's: no user asks for it. Dormant users count for nothing
 * that needs an active seat, and become active again on their next sign-in or request.
 */
export async function markInactiveUsersDormant(store: AuthorizedStore, now: Date, thresholdMs: number): Promise<number> {
  if (thresholdMs <= 0) return 0;
  return store.users.markInactiveDormant(new Date(now.getTime() - thresholdMs));
}
