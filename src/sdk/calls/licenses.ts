import { ClientCore } from '../client-core.js';
import type { Response, Entitlements, License } from '../wire/index.js';

/**
 * Licenses and the entitlements they grant.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class LicensesCalls extends ClientCore {
  addLicense(license: string): Promise<License> {
    return this.request('POST', '/licenses', { body: { license } });
  }

  licenses(): Promise<License[]> {
    return this.request('GET', '/licenses');
  }

  async deleteLicense(id: number | string): Promise<void> {
    await this.request('DELETE', `/licenses/${encodeURIComponent(String(id))}`);
  }

  refreshEntitlements(): Promise<Response> {
    return this.request('POST', '/licenses/refresh-entitlements');
  }

  entitlements(): Promise<Entitlements> {
    return this.request('GET', '/entitlements');
  }
}
