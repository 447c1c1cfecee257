import type { Store } from '../store/store.js';

/**
 * Marks active users who have not been seen for `thresholdMs` as dormant and returns how many.
 * Runs as the daemon itself: no user asks for it. Dormant users count for nothing that needs an
 * active seat, and become active again on their next sign-in or request.
 */
export async function markInactiveUsersDormant(store: Store, now: Date, thresholdMs: number): Promise<number> {
  if (thresholdMs <= 0) return 0;
  const cutoff = new Date(now.getTime() - thresholdMs).toISOString();
  const result = await store.db
    .updateTable('users')
    .set({ status: 'dormant', updated_at: now.toISOString() })
    .where('status', '=', 'active')
    .where('deleted', '=', 0)
    .where('last_seen_at', '<', cutoff)
    .executeTakeFirst();
  const changed = Number(result.numUpdatedRows);
  // Cached sessions carry the old status; drop them so the next request sees the new one.
  if (changed > 0) await store.invalidateSessions('*');
  return changed;
}
