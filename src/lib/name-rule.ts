// The rule for names (usernames, role names, ...), with no dependency: the daemon enforces it and
// the CLI checks a name typed at a prompt against it.

const NAME_PATTERN = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/;

/** Why `name` breaks the "name" rule (as for usernames), or `undefined` when it is fine. */
export function nameRuleError(name: string): string | undefined {
  if (name.length > 32) return 'must be <= 32 characters';
  if (name.length < 1) return 'must be >= 1 character';
  // Such names would collide with routes like /new and /create.
  if (name === 'new' || name === 'create') return `cannot use "${name}" as a name`;
  if (!NAME_PATTERN.test(name)) return 'must be alphanumeric with hyphens';
  return undefined;
}
