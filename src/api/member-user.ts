import { HttpProblem, isNotFoundOrHidden } from '../lib/errors.js';
import { SYSTEM_SUBJECTS } from '../rbac/system-subjects.js';
import type { UserRow } from '../store/rows.js';
import type { ApiContext } from './context.js';

/**
 * Resolves the `{user}` of an organization-member route (id, username or `me`). Member routes
 * name users the caller may not read as users; the membership is what gets authorized, so the
 * name is resolved as the member-lookup subject (no user's subject fits: the caller's could hide
 * the user), as the reference does. Routes using it set `config.loadItself: ['user']`.
 */
export async function resolveMemberUser(context: ApiContext, param: string, callerId: string): Promise<UserRow> {
  try {
    return await context.store.as(SYSTEM_SUBJECTS.memberLookup).users.get(param === 'me' ? callerId : param);
  } catch (error) {
    if (isNotFoundOrHidden(error)) {
      throw new HttpProblem(400, '"user" must be an existing uuid or username.', { detail: `queried user="${param}"` });
    }
    throw error;
  }
}
