/**
 * The values of an `in (…)` list, padded to the next power of two by repeating the last one. A
 * list of any length then compiles to one of a few statement texts, so the statement caches
 * (SQLite's prepared statements, PostgreSQL's named ones) keep a handful per query rather than one
 * per length: watch re-reads, for one, read batches of every size from 1 to 100, and each prepared
 * statement holds memory for as long as it is cached. Repeating a value changes no `in` answer.
 */
export function inList<T>(values: readonly T[]): T[] {
  const last = values.at(-1);
  if (last === undefined || values.length > MAX_PADDED) return [...values];
  let size = 1;
  while (size < values.length) size *= 2;
  const padded = [...values];
  while (padded.length < size) padded.push(last);
  return padded;
}

/** Longer lists are left as they are: rare, and padding them would double what is sent. */
const MAX_PADDED = 1024;
