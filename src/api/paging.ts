import { Type } from '@sinclair/typebox';

/**
 * Query parameters that page through lists, bounded so that every accepted value is one the
 * databases can bind: an unbounded integer such as 1e308 passes as an integer in JSON terms and
 * then fails in SQL. Out of range is a 400 naming the parameter.
 */

/** The largest page size or offset: PostgreSQL's `integer`. */
const MAX_PAGE = 2_147_483_647;

/** How many rows a page holds; 0 is no limit where a route says so. */
export const PageLimit = Type.Integer({ minimum: 0, maximum: MAX_PAGE });

/** How many rows to skip. */
export const PageOffset = Type.Integer({ minimum: 0, maximum: MAX_PAGE });

/** A log line id to page from (`before`, `after`). */
export const LogIdCursor = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/** The query of the user pickers (`?q=&limit=&offset=`), as the reference's `UsersRequest` sends it. */
export const UserPickerQuery = Type.Object({
  q: Type.Optional(Type.String()),
  limit: Type.Optional(PageLimit),
  offset: Type.Optional(PageOffset),
});
