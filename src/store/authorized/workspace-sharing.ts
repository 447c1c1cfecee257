import { StoreFamily } from './store-family.js';
import { NotFoundError } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import { listAvailableUsers, type AvailableUserRow } from '../queries/available-users.js';
import * as workspaces from '../queries/workspaces.js';
import { workspaceRbac } from '../rbac-objects.js';

/** Who a workspace could be shared with. */
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
    const workspace = isUuid(workspaceId) ? await workspaces.getWorkspaceById(this.db, workspaceId) : undefined;
    if (!workspace) throw new NotFoundError('workspace');
    this.require('read', workspaceRbac(workspace));
    this.require('update', workspaceRbac(workspace));
    return listAvailableUsers(this.db, this.store.dialect, {
      organizationId: workspace.organization_id,
      exceptUserId: workspace.owner_id,
      ...query,
    });
  }
}
