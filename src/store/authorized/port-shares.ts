import type { AuditChange } from '../audit/audit-request.js';
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
    const before = await portShares.getPortShare(this.db, workspace.id, share.agent_name, share.port);
    await this.audited(
      (trx) =>
        trx
          .insertInto('workspace_port_shares')
          .values(share)
          .onConflict((oc) =>
            oc.columns(['workspace_id', 'agent_name', 'port']).doUpdateSet({ share_level: share.share_level, protocol: share.protocol }),
          )
          .execute(),
      () => portShareChange(workspace, share.agent_name, share.port, before, share),
    );
  }

  /** Stops sharing a port; returns whether there was a share. */
  async delete(workspace: workspaces.WorkspaceRow, agentName: string, port: number): Promise<boolean> {
    this.require('update', workspaceRbac(workspace));
    const before = await portShares.getPortShare(this.db, workspace.id, agentName, port);
    if (!before) return false;
    return this.audited(
      async (trx) => {
        const result = await trx
          .deleteFrom('workspace_port_shares')
          .where('workspace_id', '=', workspace.id)
          .where('agent_name', '=', agentName)
          .where('port', '=', port)
          .executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      },
      (deleted) => (deleted ? portShareChange(workspace, agentName, port, before, undefined) : undefined),
    );
  }

  /** How a readable workspace shares one port of one of its agents; undefined when it does not. */
  async get(workspace: workspaces.WorkspaceRow, agentName: string, port: number): Promise<portShares.PortShareRow | undefined> {
    this.require('read', workspaceRbac(workspace));
    return portShares.getPortShare(this.db, workspace.id, agentName, port);
  }
}

/** A port share's change, as a write of its workspace: the share before and after, by agent and port. */
function portShareChange(
  workspace: workspaces.WorkspaceRow,
  agentName: string,
  port: number,
  before: { readonly share_level: string; readonly protocol: string } | undefined,
  after: { readonly share_level: string; readonly protocol: string } | undefined,
): AuditChange {
  const key = `port_share ${agentName}:${port}`;
  const shown = (share: typeof before) => (share ? { [key]: `${share.share_level} ${share.protocol}` } : {});
  return {
    resourceType: 'workspace',
    action: 'write',
    resourceId: workspace.id,
    resourceTarget: workspace.name,
    organizationId: workspace.organization_id,
    old: shown(before),
    new: shown(after),
  };
}
