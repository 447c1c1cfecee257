import { HttpProblem } from '../lib/errors.js';
import type { UpdateWorkspaceACL, WorkspaceRole } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { WorkspaceAclChanges, WorkspaceAclView } from '../store/authorized/workspace-sharing.js';

/** What `use` grants: see and enter the workspace, start and stop it. */
const USE_ACTIONS = ['read', 'ssh', 'application_connect', 'start', 'stop'] as const;
/** What `admin` grants besides: change its settings and delete it. */
const ADMIN_ACTIONS = [...USE_ACTIONS, 'update', 'delete'] as const;

/** The actions a role grants, in the order they are stored. */
export function workspaceRoleActions(role: 'use' | 'admin'): readonly string[] {
  return role === 'admin' ? ADMIN_ACTIONS : USE_ACTIONS;
}

/** The role stored actions amount to: `admin` when they include changing the workspace, `use` when reading it. */
export function workspaceRoleOf(actions: readonly string[]): WorkspaceRole {
  if (actions.includes('*') || actions.includes('update')) return 'admin';
  if (actions.includes('read')) return 'use';
  return '';
}

/** A workspace's ACL with roles rather than actions. */
export interface WorkspaceAcl {
  readonly view: WorkspaceAclView;
  readonly userRoles: ReadonlyMap<string, WorkspaceRole>;
  readonly groupRoles: ReadonlyMap<string, WorkspaceRole>;
}

/** Reads who a workspace is shared with, and with which role. */
export async function readWorkspaceAcl(store: AuthorizedStore, workspaceId: string): Promise<WorkspaceAcl> {
  const view = await store.workspaceSharing.acl(workspaceId);
  return {
    view,
    userRoles: new Map(view.users.map((user) => [user.id, workspaceRoleOf(user.actions)])),
    groupRoles: new Map(view.groups.map((group) => [group.id, workspaceRoleOf(group.actions)])),
  };
}

/**
 * Applies an ACL update: each id gets its role's actions, `''` removes it. An unknown role is a
 * 400 naming the field; who may be named is the store's to check.
 */
export async function updateWorkspaceAcl(store: AuthorizedStore, workspaceId: string, update: UpdateWorkspaceACL): Promise<void> {
  const validations: { field: string; detail: string }[] = [];
  const parse = (field: 'user_roles' | 'group_roles'): WorkspaceAclChanges['users'] => {
    const changes = new Map<string, readonly string[] | null>();
    for (const [id, role] of Object.entries(update[field] ?? {})) {
      if (role === '') changes.set(id, null);
      else if (role === 'use' || role === 'admin') changes.set(id, workspaceRoleActions(role));
      else validations.push({ field, detail: `Role "${role}" is not a valid workspace role: use "use", "admin" or "" to remove.` });
    }
    return changes;
  };
  const users = parse('user_roles');
  const groups = parse('group_roles');
  if (validations.length > 0) throw new HttpProblem(400, 'Invalid request to update the workspace ACL.', { validations });
  await store.workspaceSharing.updateAcl(workspaceId, { users, groups });
}
