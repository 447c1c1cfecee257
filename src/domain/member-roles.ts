import { forbiddenProblem, HttpProblem } from '../lib/errors.js';
import { canAssignRole, isOrgRoleName, ORG_MEMBER_ROLE, orgScoped } from '../rbac/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import { parseStringArray } from '../store/json-column.js';
import type { MemberRow } from '../store/rows.js';

/** Replaces a member's organization roles under the assignment rules. */
export async function setMemberRoles(
  store: AuthorizedStore,
  organizationId: string,
  userId: string,
  requested: readonly string[],
): Promise<MemberRow> {
  // Someone who may not assign organization roles at all is refused as such, themselves included;
  // the rule against changing one's own roles is for those who could otherwise do it.
  const assignRoles = orgScoped('assign_org_role', organizationId);
  if (!store.can('assign', assignRoles) && !store.can('unassign', assignRoles)) {
    await store.members.get(organizationId, userId);
    throw forbiddenProblem();
  }
  if (userId === store.subject.id) {
    throw new HttpProblem(400, 'You cannot change your own organization roles.', {
      detail: 'Another user with the appropriate permissions must change your roles.',
    });
  }
  const member = await store.members.get(organizationId, userId);
  // Rank before the roles asked for: whoever may not act on the member is told so, whatever they ask.
  await store.requireOutranks(userId, organizationId);
  const customNames = new Set((await store.roles.listCustom(organizationId)).map((role) => role.name));
  const wanted = [...new Set(requested.filter((name) => name !== ORG_MEMBER_ROLE))];
  for (const name of wanted) {
    if (name.includes(':')) throw new HttpProblem(400, `attempt to assign a role "${name}", remove the ':<organization_id> suffix`);
    if (!isOrgRoleName(name) && !customNames.has(name)) throw new HttpProblem(400, `"${name}:${organizationId}" is not a supported role`);
  }
  const current = parseStringArray(member.roles);
  const added = wanted.filter((name) => !current.includes(name));
  const removed = current.filter((name) => !wanted.includes(name));
  const object = { type: 'assign_org_role', org_id: organizationId } as const;
  if ((added.length > 0 && !store.can('assign', object)) || (removed.length > 0 && !store.can('unassign', object))) {
    throw forbiddenProblem();
  }
  for (const name of [...added, ...removed]) {
    if (!canAssignRole(store.subject, name, organizationId, !isOrgRoleName(name))) {
      throw new HttpProblem(400, `not authorized to assign role "${name}"`);
    }
  }
  return store.members.setRoles(organizationId, userId, wanted, { added: added.length > 0, removed: removed.length > 0 });
}
