import { ClientCore } from '../client-core.js';
import type { WorkspaceQuota } from '../wire/index.js';

/**
 * Workspace quotas: what a user spends a day and the budget their groups allow.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class WorkspaceQuotaCalls extends ClientCore {
  /** A user's quota (id, username or `me`) in an organization (id or name), or in the default organization without one. */
  workspaceQuota(user: string, organization?: string): Promise<WorkspaceQuota> {
    const who = encodeURIComponent(user);
    return organization === undefined
      ? this.request('GET', `/workspace-quota/${who}`)
      : this.request('GET', `/organizations/${encodeURIComponent(organization)}/members/${who}/workspace-quota`);
  }
}
