import { randomBytes } from 'node:crypto';
import { ConflictError } from '../lib/errors.js';
import { newId } from '../lib/random.js';
import { withConflicts } from '../store/db-errors.js';
import { getDefaultOrganization, insertOrganization, type OrganizationRow } from '../store/queries/organizations.js';
import { ensureSiteValue } from '../store/queries/site-config.js';
import type { Store } from '../store/store.js';

/** What every deployment has from its first start. */
export interface DeploymentIdentity {
  readonly deploymentId: string;
  readonly defaultOrganization: OrganizationRow;
  /** Secret key for what the daemon signs (sign-in conversion states, app tokens); shared by replicas. */
  readonly signingKey: Buffer;
}

/**
 * Creates the deployment id and the default organization on first start, and reads them on every
 * later one. Runs as the daemon itself, before any request: nobody is signed in yet.
 * Safe when replicas start at once: the unique indexes decide, and the loser reads the winner's rows.
 */
export async function bootstrapDeployment(store: Store): Promise<DeploymentIdentity> {
  const deploymentId = await ensureSiteValue(store.db, 'deployment_id', newId());
  const signingKey = Buffer.from(await ensureSiteValue(store.db, 'signing_key', randomBytes(32).toString('hex')), 'hex');
  let organization = await getDefaultOrganization(store.db);
  if (!organization) {
    const now = store.nowIso();
    try {
      organization = await withConflicts(() =>
        insertOrganization(store.db, {
          id: newId(),
          name: 'cove',
          display_name: 'Cove',
          description: 'The default organization, created when the deployment first started.',
          icon: '',
          is_default: 1,
          created_at: now,
          updated_at: now,
        }),
      );
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      organization = await getDefaultOrganization(store.db);
      if (!organization) throw error;
    }
  }
  return { deploymentId, defaultOrganization: organization, signingKey };
}
