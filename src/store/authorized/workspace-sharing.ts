import { workspaceChange } from '../audit/workspace-change.js';
import { StoreFamily } from './store-family.js';
import { HttpProblem, NotFoundError } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import { organizationObject } from '../../rbac/index.js';
import { parseJson } from '../json-column.js';
import { listAvailableUsers, type AvailableUserRow } from '../queries/available-users.js';
import * as acl from '../queries/workspace-acl.js';
import * as workspaces from '../queries/workspaces.js';
import { workspaceRbac } from '../rbac-objects.js';

export type { AclUserRow, AclGroupRow } from '../queries/workspace-acl.js';

/** An ACL as stored: ids of users or groups to the actions granted them. */
type AclMap = Record<string, string[]>;

/** A change to a workspace's ACLs: ids to the actions they get now, `null` to take their entry away. */
export interface WorkspaceAclChanges {
  readonly users: ReadonlyMap<string, readonly string[] | null>;
  readonly groups: ReadonlyMap<string, readonly string[] | null>;
}

/** A workspace's ACLs with the users and groups they name (ids that name nothing any more are left out). */
export interface WorkspaceAclView {
  readonly workspace: workspaces.WorkspaceRow;
  readonly users: (acl.AclUserRow & { readonly actions: readonly string[] })[];
  readonly groups: (acl.AclGroupRow & { readonly actions: readonly string[] })[];
}

/** Who a workspace is shared with, and who it could be. */
export class WorkspaceSharingStore extends StoreFamily {
  /**
   * The active members of the workspace's organization other than its owner. Needs `update` on the
   * workspace: whoever may change who has access sees the candidates, even members they could not
   * read as users otherwise.
   */
  async availableUsers(
    workspaceId: string,
    query: { readonly search: string; readonly limit: number; readonly offset: number },
  ): Promise<AvailableUserRow[]> {
    const workspace = await this.#readable(workspaceId);
    this.require('update', workspaceRbac(workspace));
    return listAvailableUsers(this.db, this.store.dialect, {
      organizationId: workspace.organization_id,
      exceptUserId: workspace.owner_id,
      ...query,
    });
  }

  /**
   * The workspace's ACLs with whom they name. Needs `update`, the right to share, as the reference
   * does: a user the workspace is shared with does not learn who else it is shared with.
   */
  async acl(workspaceId: string): Promise<WorkspaceAclView> {
    const workspace = await this.#readable(workspaceId);
    this.require('update', workspaceRbac(workspace));
    const userAcl = parseJson<AclMap>(workspace.user_acl, {});
    const groupAcl = parseJson<AclMap>(workspace.group_acl, {});
    const users = await acl.listOrgMembersByIds(this.db, workspace.organization_id, Object.keys(userAcl).filter(isUuid));
    const groups = await acl.listOrgGroupsByIds(this.db, workspace.organization_id, Object.keys(groupAcl).filter(isUuid));
    return {
      workspace,
      users: users.map((row) => ({ ...row, actions: userAcl[row.id] ?? [] })),
      groups: groups.map((row) => ({ ...row, actions: groupAcl[row.id] ?? [] })),
    };
  }

  /**
   * Changes the workspace's ACLs; needs `update` on it. Users must be members of its organization
   * other than its owner, groups must be its organization's (400 naming the field otherwise); 403
   * while the organization has sharing turned off. Whoever loses or changes access has their
   * sessions re-checked, which ends the connections they may no longer hold.
   */
  async updateAcl(workspaceId: string, changes: WorkspaceAclChanges): Promise<void> {
    const workspace = await this.#readable(workspaceId);
    this.require('update', workspaceRbac(workspace));
    if (await acl.isWorkspaceSharingDisabled(this.db, workspace.organization_id)) throw sharingDisabled();
    const added = (entries: WorkspaceAclChanges['users']) => [...entries].filter(([, actions]) => actions !== null).map(([id]) => id);
    const validations: { field: string; detail: string }[] = [];
    const userIds = added(changes.users);
    const members = new Set(
      (await acl.listOrgMembersByIds(this.db, workspace.organization_id, userIds.filter(isUuid))).map((row) => row.id),
    );
    for (const id of userIds) {
      if (id === workspace.owner_id)
        validations.push({ field: 'user_roles', detail: 'The workspace owner already has full access and cannot be given a role.' });
      else if (!members.has(id))
        validations.push({ field: 'user_roles', detail: `User "${id}" is not a member of the workspace's organization.` });
    }
    const groupIds = added(changes.groups);
    const groups = new Set(
      (await acl.listOrgGroupsByIds(this.db, workspace.organization_id, groupIds.filter(isUuid))).map((row) => row.id),
    );
    for (const id of groupIds)
      if (!groups.has(id))
        validations.push({ field: 'group_roles', detail: `Group "${id}" is not a group of the workspace's organization.` });
    if (validations.length > 0) throw new HttpProblem(400, 'Invalid request to update the workspace ACL.', { validations });

    const userAcl = apply(parseJson<AclMap>(workspace.user_acl, {}), changes.users);
    const groupAcl = apply(parseJson<AclMap>(workspace.group_acl, {}), changes.groups);
    const next = { ...workspace, user_acl: JSON.stringify(userAcl), group_acl: JSON.stringify(groupAcl) };
    await this.audited(
      async (trx) => {
        if (!(await acl.setWorkspaceAcl(trx, workspace.id, { userAcl: next.user_acl, groupAcl: next.group_acl }))) throw sharingDisabled();
      },
      () => workspaceChange('write', workspace, next),
    );
    await this.#recheck(workspace.organization_id, [...changes.users.keys()], [...changes.groups.keys()]);
  }

  /** Takes every share of the workspace away; needs `update` on it. */
  async clearAcl(workspaceId: string): Promise<void> {
    const workspace = await this.#readable(workspaceId);
    this.require('update', workspaceRbac(workspace));
    await this.audited(
      (trx) => acl.clearWorkspaceAcl(trx, workspace.id),
      () => workspaceChange('write', workspace, { ...workspace, user_acl: '{}', group_acl: '{}' }),
    );
    await this.#recheckAcls(workspace.organization_id, [workspace]);
  }

  /** Whether the organization has workspace sharing turned off; needs `read` on it. */
  async sharingDisabled(organizationId: string): Promise<boolean> {
    this.require('read', organizationObject(organizationId));
    const disabled = await acl.isWorkspaceSharingDisabled(this.db, organizationId);
    if (disabled === undefined) throw new NotFoundError('organization');
    return disabled;
  }

  /**
   * Turns the organization's workspace sharing on or off; needs `update` on it. Off takes every
   * share of its workspaces away, and their users' connections to them end.
   */
  async setSharingDisabled(organizationId: string, disabled: boolean): Promise<void> {
    this.require('update', organizationObject(organizationId));
    const before = await this.sharingDisabled(organizationId);
    const organizationName =
      (await this.db.selectFrom('organizations').select('name').where('id', '=', organizationId).executeTakeFirst())?.name ?? '';
    const cleared = await this.audited(
      (trx) => acl.setWorkspaceSharingDisabled(trx, organizationId, disabled),
      () =>
        before === disabled
          ? undefined
          : {
              resourceType: 'organization',
              action: 'write',
              resourceId: organizationId,
              resourceTarget: organizationName,
              organizationId,
              old: { workspace_sharing_disabled: before },
              new: { workspace_sharing_disabled: disabled },
            },
    );
    if (!before) await this.#recheckAcls(organizationId, cleared);
  }

  async #readable(workspaceId: string): Promise<workspaces.WorkspaceRow> {
    const workspace = isUuid(workspaceId) ? await workspaces.getWorkspaceById(this.db, workspaceId) : undefined;
    if (!workspace) throw new NotFoundError('workspace');
    this.require('read', workspaceRbac(workspace));
    return workspace;
  }

  async #recheckAcls(organizationId: string, rows: readonly { readonly user_acl: string; readonly group_acl: string }[]): Promise<void> {
    const users = rows.flatMap((row) => Object.keys(parseJson<AclMap>(row.user_acl, {})));
    const groups = rows.flatMap((row) => Object.keys(parseJson<AclMap>(row.group_acl, {})));
    await this.#recheck(organizationId, users, groups);
  }

  /**
   * Re-checks the sessions of the users named and of the groups' members: each replica then
   * authorizes their open connections again against the ACLs as they are now.
   */
  async #recheck(organizationId: string, userIds: readonly string[], groupIds: readonly string[]): Promise<void> {
    const reached = await acl.listUserIdsOfGroups(this.db, organizationId, groupIds.filter(isUuid));
    for (const userId of new Set([...userIds.filter(isUuid), ...reached])) await this.store.invalidateSessions({ userId });
  }
}

function apply(current: AclMap, changes: WorkspaceAclChanges['users']): AclMap {
  const next = { ...current };
  for (const [id, actions] of changes) {
    if (actions === null) delete next[id];
    else next[id] = [...actions];
  }
  return next;
}

function sharingDisabled(): HttpProblem {
  return new HttpProblem(403, 'Workspace sharing is disabled for this organization.', {
    detail: 'An organization admin can turn it back on in the organization settings.',
  });
}
