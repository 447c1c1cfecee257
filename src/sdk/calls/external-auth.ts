import { ClientCore } from '../client-core.js';
import type {
  DeleteExternalAuthByIDResponse,
  ExternalAuth,
  ExternalAuthDevice,
  ExternalAuthDeviceExchange,
  ListUserExternalAuthResponse,
  TemplateVersionExternalAuth,
} from '../wire/index.js';

/**
 * The caller's links to external auth providers (git providers and other OAuth2 apps), and what a
 * template version requires of them.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class ExternalAuthCalls extends ClientCore {
  /** The configured providers and the caller's links. */
  externalAuthLinks(): Promise<ListUserExternalAuthResponse> {
    return this.request('GET', '/external-auth');
  }

  /** Whether the caller has linked provider `id`, and as whom. */
  externalAuth(id: string): Promise<ExternalAuth> {
    return this.request('GET', `/external-auth/${encodeURIComponent(id)}`);
  }

  /** Removes the caller's link to provider `id`, revoking the token where the provider can. */
  unlinkExternalAuth(id: string): Promise<DeleteExternalAuthByIDResponse> {
    return this.request('DELETE', `/external-auth/${encodeURIComponent(id)}`);
  }

  /** Starts a device authorization with provider `id`: the code the user enters at the provider. */
  externalAuthDevice(id: string): Promise<ExternalAuthDevice> {
    return this.request('GET', `/external-auth/${encodeURIComponent(id)}/device`);
  }

  /**
   * Exchanges a device code once the user entered its user code at the provider. Until then the
   * deployment answers 400 with the provider's `authorization_pending` (or `slow_down`) as detail.
   */
  exchangeExternalAuthDevice(id: string, request: ExternalAuthDeviceExchange): Promise<void> {
    return this.request('POST', `/external-auth/${encodeURIComponent(id)}/device`, { body: request });
  }

  /** The providers template version `id` requires, and whether the caller has linked each. */
  templateVersionExternalAuth(id: string): Promise<TemplateVersionExternalAuth[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/external-auth`);
  }
}
