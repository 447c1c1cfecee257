import { nameRuleError } from '../rbac/index.js';

/**
 * Checks a username, organization, template or workspace name: 1–32 alphanumerics with single
 * hyphens between them, and not a word the URLs reserve. Returns what is wrong, or undefined.
 * The rule is the one custom role names follow, so it is defined once, with them.
 */
export const nameProblem: (name: string) => string | undefined = nameRuleError;

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
