import { ClientCore } from '../client-core.js';
import type { IdpSyncPreview, OIDCClaimsResponse } from '../wire/index.js';

/**
 * What group and role sync from the OIDC provider see.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class IdpSyncCalls extends ClientCore {
  /** The claims of the caller's last OIDC sign-in. */
  oidcClaims(): Promise<OIDCClaimsResponse> {
    return this.request('GET', '/users/oidc-claims');
  }

  /** What sync makes of a user's last claims under the deployment's settings (administrators). */
  idpSyncPreview(user: string): Promise<IdpSyncPreview> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/idp-sync-preview`);
  }
}
