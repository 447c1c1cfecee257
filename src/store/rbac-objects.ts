import type { RbacObject } from '../rbac/index.js';
import { parseJson } from './json-column.js';
import type { GroupRow, TemplateRow, WorkspaceRow } from './rows.js';

/**
 * Rows as the policy sees them: the one place that maps a stored row to its RBAC object, used by the
 * authorizing store and by every layer above it that asks `can()`.
 */

/** A template as the policy sees it, with its ACLs. */
export function templateRbac(row: Pick<TemplateRow, 'id' | 'organization_id' | 'user_acl' | 'group_acl'>): RbacObject {
  return {
    type: 'template',
    id: row.id,
    org_id: row.organization_id,
    acl_user_list: parseJson<Record<string, string[]>>(row.user_acl, {}),
    acl_group_list: parseJson<Record<string, string[]>>(row.group_acl, {}),
  };
}

/** What no share grants on a dormant workspace (the built-in roles withhold them too). */
const DORMANT_REFUSED: ReadonlySet<string> = new Set(['start', 'ssh', 'application_connect', '*']);

/**
 * A workspace as the policy sees it, with the ACLs it is shared through; dormant ones are their own
 * resource type, with fewer rights.
 */
export function workspaceRbac(
  row: Pick<WorkspaceRow, 'id' | 'organization_id' | 'owner_id' | 'dormant_at' | 'user_acl' | 'group_acl'>,
): RbacObject {
  const acl = (column: string) => {
    const parsed = parseJson<Record<string, string[]>>(column, {});
    if (!row.dormant_at) return parsed;
    // A share grants no more on a dormant workspace than its owner has: nobody starts or enters one.
    return Object.fromEntries(
      Object.entries(parsed).map(([id, actions]) => [id, Array.isArray(actions) ? actions.filter((a) => !DORMANT_REFUSED.has(a)) : []]),
    );
  };
  return {
    type: row.dormant_at ? 'workspace_dormant' : 'workspace',
    id: row.id,
    org_id: row.organization_id,
    owner_id: row.owner_id,
    acl_user_list: acl(row.user_acl),
    acl_group_list: acl(row.group_acl),
  };
}

/**
 * A group as the policy sees it: its own members may read it (a group ACL naming itself), and for
 * the "Everyone" group, whose id is the organization's, that means every member of the organization.
 */
export function groupRbac(row: Pick<GroupRow, 'id' | 'organization_id'>): RbacObject {
  return { type: 'group', id: row.id, org_id: row.organization_id, acl_group_list: { [row.id]: ['read'] } };
}

/** A user's membership of a group: owned by the user, so that members see themselves in a group's list. */
export function groupMemberRbac(userId: string, organizationId: string): RbacObject {
  return { type: 'group_member', id: userId, owner_id: userId, org_id: organizationId };
}

/**
 * A user's links to external auth providers: personal data of that user (the reference's
 * `user_data`), so `read_personal`/`update_personal` on the user decide who may see or change them.
 */
export function externalAuthLinkRbac(userId: string): RbacObject {
  return { type: 'user', id: userId, owner_id: userId };
}
