import type { Option } from 'commander';

/**
 * Options given more than once (`--header`, `--parameter`, `-p`): a flag adds a value, and the
 * option's variable holds them all, comma-separated, a value holding a comma or a quote written in
 * double quotes (`"tags=[""a"",""b""]"`), as the reference reads a list flag from its environment.
 */
const LIST_OPTIONS = new WeakSet<Option>();

/** Marks `option` as a list: repeated flags collect, its variable is a comma-separated list. */
export function listOption(option: Option): Option {
  LIST_OPTIONS.add(option);
  return option.argParser((value: string, previous: readonly string[] | undefined) => [...(previous ?? []), value]);
}

export function isListOption(option: Option): boolean {
  return LIST_OPTIONS.has(option);
}

/** One line of comma-separated values, with "" quoting; empty values are dropped. */
export function splitCommaList(text: string): string[] {
  const values: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        current += '"';
        i++;
      } else if (char === '"') quoted = false;
      else current += char;
    } else if (char === '"' && current.trim() === '') {
      quoted = true;
      current = '';
    } else if (char === ',') {
      values.push(current.trim());
      current = '';
    } else current += char;
  }
  values.push(current.trim());
  return values.filter((value) => value !== '');
}
