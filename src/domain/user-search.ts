import { HttpProblem } from '../lib/errors.js';
import type { UserFilter } from '../store/rows.js';

/** A parsed `q` of `GET /users`. */
export type UserSearch = UserFilter;

const FILTERS = new Set(['status', 'role', 'login_type']);

/** Parses `status:active role:owner login_type:password alice`; unknown filters are a 400. */
export function parseUserSearch(q: string | undefined): UserSearch {
  const found: Record<string, string> = {};
  const words: string[] = [];
  for (const token of (q ?? '').trim().split(/\s+/).filter(Boolean)) {
    const colon = token.indexOf(':');
    if (colon <= 0) {
      words.push(token);
      continue;
    }
    const key = token.slice(0, colon).toLowerCase();
    const value = token.slice(colon + 1);
    if (!FILTERS.has(key)) {
      throw new HttpProblem(400, 'Invalid user search query.', {
        validations: [{ field: 'q', detail: `Query param "${key}" is not a valid query param` }],
      });
    }
    found[key] = value.toLowerCase();
  }
  return {
    text: words.length > 0 ? words.join(' ') : undefined,
    status: found['status'],
    role: found['role'],
    loginType: found['login_type'],
  };
}
