/**
 * A list, or `undefined` when it is empty: the reference's server leaves an empty list out of its
 * answers (Go's `omitempty`) where its client types mark the field optional.
 */
export function nonEmpty<T>(list: T[]): T[] | undefined {
  return list.length > 0 ? list : undefined;
}
