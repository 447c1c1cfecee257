const NAME_PATTERN = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/;

/**
 * Checks a username, organization, template or workspace name: 1–32 alphanumerics with single
 * hyphens between them, and not a word the URLs reserve. Returns what is wrong, or undefined.
 */
export function nameProblem(name: string): string | undefined {
  if (name.length > 32) return 'must be <= 32 characters';
  if (name.length < 1) return 'must be >= 1 character';
  if (name === 'new' || name === 'create') return `cannot use "${name}" as a name`;
  if (!NAME_PATTERN.test(name)) return 'must be alphanumeric with hyphens';
  return undefined;
}

/** Checks a person's real name: at most 128 characters, no surrounding whitespace. */
export function realNameProblem(name: string): string | undefined {
  if (name.length > 128) return 'must be <= 128 characters';
  if (name !== name.trim()) return 'must not start or end with whitespace';
  return undefined;
}

/** The detail the API reports for a field that failed a named rule. */
export function ruleDetail(rule: string, value: unknown): string {
  return `Validation failed for tag "${rule}" with value: "${value === undefined || value === null ? '' : String(value)}"`;
}
