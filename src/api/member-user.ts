import { HttpProblem } from '../lib/errors.js';
import { isUuid } from '../lib/random.js';
import { getUserById, getUserByUsername, type UserRow } from '../store/queries/users.js';
import type { Store } from '../store/store.js';

/**
 * Resolves the `{user}` of an organization-member route (id, username or `me`). Member routes
 * name users the caller may not read as users; the membership is what gets authorized, so the
 * name is resolved with the daemon's own privileges, as the reference does.
 */
export async function resolveMemberUser(store: Store, param: string, callerId: string): Promise<UserRow> {
  const key = param === 'me' ? callerId : param;
  const user = isUuid(key) ? await getUserById(store.db, key) : await getUserByUsername(store.db, key);
  if (!user) throw new HttpProblem(400, '"user" must be an existing uuid or username.', { detail: `queried user="${param}"` });
  return user;
}
