import { randomBytes } from 'node:crypto';
import { newId } from '../lib/random.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { OrganizationRow } from '../store/rows.js';
/** What every deployment has from its first start. */
export interface DeploymentIdentity {
  readonly deploymentId: string;
  readonly defaultOrganization: OrganizationRow;
  /** Secret key for what the daemon signs (sign-in conversion states, app tokens); shared by replicas. */
  readonly signingKey: Buffer;
}

/**
 * Creates the deployment id and the default organization on first start, and reads them on every
 * later one. `store` is the bootstrap subject's: this runs before any request, nobody is signed in.
 * Safe when replicas start at once: the unique indexes decide, and the loser reads the winner's rows.
 */
export async function bootstrapDeployment(store: AuthorizedStore, now: Date): Promise<DeploymentIdentity> {
  const deploymentId = await store.deployment.ensureSiteValue('deployment_id', newId());
  const signingKey = Buffer.from(await store.deployment.ensureSiteValue('signing_key', randomBytes(32).toString('hex')), 'hex');
  const iso = now.toISOString();
  const defaultOrganization = await store.organizations.ensureDefault({
    id: newId(),
    name: 'cove',
    display_name: 'Cove',
    description: 'The default organization, created when the deployment first started.',
    icon: '',
    is_default: 1,
    workspace_sharing_disabled: 0,
    created_at: iso,
    updated_at: iso,
  });
  return { deploymentId, defaultOrganization, signingKey };
}
