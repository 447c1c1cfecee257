import type { WorkspaceRow } from '../queries/workspaces.js';
import type { AuditChange } from './audit-request.js';

/**
 * A workspace's audit entry. Columns the daemon keeps up by itself (the latest build's status, the
 * last use, the deletion mark a delete build sets) are left out of the diff: no caller changes them.
 */
export function workspaceChange(
  action: 'create' | 'write' | 'delete',
  before: WorkspaceRow | undefined,
  after: WorkspaceRow | undefined,
  additionalFields?: Readonly<Record<string, string>>,
): AuditChange {
  const row = after ?? before;
  const tracked = (workspace: WorkspaceRow | undefined) => {
    if (!workspace) return undefined;
    const { latest_build_status: _status, last_used_at: _used, deleted: _deleted, ...rest } = workspace;
    return { ...rest, user_acl: parseObject(rest.user_acl), group_acl: parseObject(rest.group_acl), favorite: rest.favorite === 1 };
  };
  return {
    resourceType: 'workspace',
    action,
    resourceId: row?.id ?? '',
    resourceTarget: row?.name ?? '',
    organizationId: row?.organization_id ?? '',
    old: tracked(before),
    new: tracked(after),
    ...(additionalFields ? { additionalFields } : {}),
  };
}

/** An ACL column as the object it holds, so that the diff shows entries rather than text. */
function parseObject(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
