import { StoreFamily } from './store-family.js';
import { workspaceRbac } from '../rbac-objects.js';
import { type Database } from '../schema.js';
import * as workspaces from '../queries/workspaces.js';
import * as portShares from '../queries/workspace-port-shares.js';

/** Shared ports of workspaces. */
export class PortShareStore extends StoreFamily {
  /** The ports a readable workspace shares, by port. */
  async list(workspace: workspaces.WorkspaceRow): Promise<Database['workspace_port_shares'][]> {
    this.require('read', workspaceRbac(workspace));
    return this.db
      .selectFrom('workspace_port_shares')
      .selectAll()
      .where('workspace_id', '=', workspace.id)
      .orderBy('port')
      .orderBy('agent_name')
      .execute();
  }

  /** Shares a port (or changes how), keyed by agent and port; needs `update` on the workspace. */
  async upsert(workspace: workspaces.WorkspaceRow, share: Database['workspace_port_shares']): Promise<void> {
    this.require('update', workspaceRbac(workspace));
    await this.db
      .insertInto('workspace_port_shares')
      .values(share)
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'agent_name', 'port']).doUpdateSet({ share_level: share.share_level, protocol: share.protocol }),
      )
      .execute();
  }

  /** Stops sharing a port; returns whether there was a share. */
  async delete(workspace: workspaces.WorkspaceRow, agentName: string, port: number): Promise<boolean> {
    this.require('update', workspaceRbac(workspace));
    const result = await this.db
      .deleteFrom('workspace_port_shares')
      .where('workspace_id', '=', workspace.id)
      .where('agent_name', '=', agentName)
      .where('port', '=', port)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** How a readable workspace shares one port of one of its agents; undefined when it does not. */
  async get(workspace: workspaces.WorkspaceRow, agentName: string, port: number): Promise<portShares.PortShareRow | undefined> {
    this.require('read', workspaceRbac(workspace));
    return portShares.getPortShare(this.db, workspace.id, agentName, port);
  }
}
