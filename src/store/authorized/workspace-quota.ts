import { StoreFamily } from './store-family.js';
import { NotAuthorizedError } from '../../lib/errors.js';
import * as quota from '../queries/workspace-quota.js';
import { workspaceRbac } from '../rbac-objects.js';
import type { WorkspaceBuildRow, WorkspaceRow } from '../rows.js';

/** A user's spending in one organization against their groups' allowances. */
export interface QuotaStanding {
  readonly consumed: number;
  readonly budget: number;
  /** False when no group of the organization has an allowance: spending is then unbounded. */
  readonly inUse: boolean;
}

/** What starting a workspace would cost, beside what its owner spends on their other workspaces. */
export interface QuotaPlan extends QuotaStanding {
  /** The daily cost the build's version plans for a start. */
  readonly cost: number;
}

/** Workspace quotas: credits consumed by a user's workspaces, and the budget their groups allow. */
export class WorkspaceQuotaStore extends StoreFamily {
  /**
   * The user's standing in the organization. The user reads their own; others need to be able to
   * read the user's workspaces there (the reference guards it by reading the user).
   */
  async get(userId: string, organizationId: string): Promise<QuotaStanding> {
    if (this.subject.id !== userId)
      this.require(
        'read',
        workspaceRbac({ id: '', organization_id: organizationId, owner_id: userId, dormant_at: null, user_acl: '{}', group_acl: '{}' }),
      );
    const [allowance, consumed] = await Promise.all([
      quota.quotaAllowance(this.db, userId, organizationId),
      quota.quotaConsumed(this.db, userId, organizationId),
    ]);
    return { consumed, budget: allowance.budget, inUse: allowance.inUse };
  }

  /**
   * What a start build of `workspace` on the version imported by `importJobId` would cost, and its
   * owner's standing without this workspace's current build (the new one replaces it). Needs
   * `read` on the workspace (one not yet written included: its owner and organization are known).
   */
  async planStart(
    workspace: Pick<WorkspaceRow, 'id' | 'organization_id' | 'owner_id' | 'dormant_at' | 'user_acl' | 'group_acl'>,
    importJobId: string,
  ): Promise<QuotaPlan> {
    if (this.subject.id !== workspace.owner_id && !this.can('read', workspaceRbac(workspace)))
      throw new NotAuthorizedError('read', 'workspace');
    const [allowance, consumed, cost] = await Promise.all([
      quota.quotaAllowance(this.db, workspace.owner_id, workspace.organization_id),
      quota.quotaConsumed(this.db, workspace.owner_id, workspace.organization_id, workspace.id),
      quota.plannedStartCost(this.db, importJobId),
    ]);
    return { consumed, budget: allowance.budget, inUse: allowance.inUse, cost };
  }

  /**
   * The same plan for a start build already queued, as the provisioner daemon claims it: the cost
   * of its version's start, the owner's standing without this workspace (its new build is its
   * latest, with nothing counted yet), and what the build before it cost. Needs `read` on the workspace.
   */
  async planQueuedStart(
    build: Pick<WorkspaceBuildRow, 'template_version_id' | 'build_number'>,
    workspace: Pick<WorkspaceRow, 'id' | 'organization_id' | 'owner_id' | 'dormant_at' | 'user_acl' | 'group_acl'>,
  ): Promise<QuotaPlan & { readonly replacedCost: number }> {
    this.require('read', workspaceRbac(workspace));
    const [allowance, consumed, cost, replacedCost] = await Promise.all([
      quota.quotaAllowance(this.db, workspace.owner_id, workspace.organization_id),
      quota.quotaConsumed(this.db, workspace.owner_id, workspace.organization_id, workspace.id),
      quota.versionStartCost(this.db, build.template_version_id),
      quota.buildCost(this.db, workspace.id, build.build_number - 1),
    ]);
    return { consumed, budget: allowance.budget, inUse: allowance.inUse, cost, replacedCost };
  }
}
