/** Arrays already read, by their text: the same few role and subsystem lists are read on every request. */
const parsedStringArrays = new Map<string, readonly string[]>();
const MAX_PARSED_STRING_ARRAYS = 1000;
const EMPTY: readonly string[] = Object.freeze([]);

/** Reads a JSON text column that holds an array of strings; anything else reads as empty. */
export function parseStringArray(text: string | null | undefined): readonly string[] {
  if (!text) return EMPTY;
  let parsed = parsedStringArrays.get(text);
  if (parsed === undefined) {
    parsed = Object.freeze(readStringArray(text));
    if (parsedStringArrays.size >= MAX_PARSED_STRING_ARRAYS) parsedStringArrays.clear();
    parsedStringArrays.set(text, parsed);
  }
  return parsed;
}

function readStringArray(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** Reads a JSON text column, falling back when it does not parse. */
export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
