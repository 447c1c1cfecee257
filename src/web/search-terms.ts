// The API's search syntax (`key:value` words and bare words) as the filter menus edit it: a menu
// sets or clears its one key and leaves the rest of what the user typed alone.

/** The value of `key:` in a search, or '' when it has none. */
export function termValue(query: string, key: string): string {
  for (const word of splitWords(query)) {
    if (word.toLowerCase().startsWith(`${key}:`)) return unquote(word.slice(key.length + 1));
  }
  return '';
}

/** The search with `key:` set to `value` (quoted when it has a space), or removed when `value` is empty. */
export function withTerm(query: string, key: string, value: string): string {
  const kept = splitWords(query).filter((word) => !word.toLowerCase().startsWith(`${key}:`));
  if (value !== '') kept.push(`${key}:${/\s/.test(value) ? `"${value}"` : value}`);
  return kept.join(' ');
}

/** Splits on spaces outside double quotes. */
function splitWords(query: string): string[] {
  return query.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
}

function unquote(value: string): string {
  return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value;
}
