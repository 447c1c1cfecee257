import { HttpProblem, type FieldValidation } from '../lib/errors.js';
import { isUuid } from '../lib/random.js';
import type { TemplateRole, UpdateTemplateACL } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { TemplateRow } from '../store/rows.js';

/** The actions each template role grants, as the reference maps them; the empty role grants none (removes the entry). */
const ROLE_ACTIONS: Readonly<Record<TemplateRole, readonly string[]>> = {
  admin: ['*'],
  use: ['read', 'use'],
  '': [],
};

function isTemplateRole(value: string): value is TemplateRole {
  return Object.hasOwn(ROLE_ACTIONS, value);
}

/** The role a stored entry's actions amount to; actions matching no role read as `""`, as the reference reads them. */
export function templateRoleOf(actions: readonly string[] | undefined): TemplateRole {
  if (!actions) return '';
  const given = new Set(actions);
  for (const role of ['admin', 'use'] as const) {
    const wanted = ROLE_ACTIONS[role];
    if (given.size === wanted.length && wanted.every((action) => given.has(action))) return role;
  }
  return '';
}

/**
 * Applies an ACL change: every role must be `use`, `admin` or `""`, every id a UUID, and every id
 * given a role a live user or a group of the template's organization (an id being removed need not
 * exist any more, so stale entries can be cleaned). Problems are answered together, each naming
 * its field (`user_perms`, `group_perms`).
 */
export async function updateTemplateAcl(store: AuthorizedStore, template: TemplateRow, input: UpdateTemplateACL): Promise<TemplateRow> {
  const problems: FieldValidation[] = [];
  const users = checkEntries('user_perms', input.user_perms ?? {}, problems);
  const groups = checkEntries('group_perms', input.group_perms ?? {}, problems);
  const granted = (entries: Record<string, readonly string[]>) => Object.keys(entries).filter((id) => (entries[id]?.length ?? 0) > 0);
  const missing = await store.templateAcl.missing(template, { users: granted(users), groups: granted(groups) });
  for (const id of missing.users) problems.push({ field: 'user_perms', detail: `user with ID ${id} does not exist` });
  for (const id of missing.groups) problems.push({ field: 'group_perms', detail: `group with ID ${id} does not exist` });
  if (problems.length > 0) throw new HttpProblem(400, 'Invalid request to update template ACL', { validations: problems });
  return store.templateAcl.change(template, { users, groups });
}

function checkEntries(
  field: string,
  given: Readonly<Record<string, string>>,
  problems: FieldValidation[],
): Record<string, readonly string[]> {
  const entries: Record<string, readonly string[]> = {};
  for (const [id, role] of Object.entries(given)) {
    if (!isTemplateRole(role)) {
      problems.push({ field, detail: `role "${role}" is not a valid template role: use "use", "admin" or "" to remove` });
      continue;
    }
    if (!isUuid(id)) {
      problems.push({ field, detail: `${id} is not a valid UUID.` });
      continue;
    }
    // Ids are stored as the subjects carry them, lowercase, or the entry would never match.
    entries[id.toLowerCase()] = ROLE_ACTIONS[role];
  }
  return entries;
}
