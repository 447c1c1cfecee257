import { ClientCore } from '../client-core.js';
import type { ApiKey, ApiKeyWithOwner, CreateTokenRequest, GenerateApiKeyResponse, TokenConfig } from '../wire/index.js';

/**
 * A user's API keys: session keys and named tokens.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class ApiKeysCalls extends ClientCore {
  /** A new session key for `user`, with the lifetime of a password sign-in. */
  createSessionKey(user = 'me'): Promise<GenerateApiKeyResponse> {
    return this.request('POST', `/users/${encodeURIComponent(user)}/keys`);
  }

  createToken(request: CreateTokenRequest = {}, user = 'me'): Promise<GenerateApiKeyResponse> {
    return this.request('POST', `/users/${encodeURIComponent(user)}/keys/tokens`, { body: request });
  }

  listTokens(options: { readonly user?: string; readonly includeAll?: boolean } = {}): Promise<ApiKeyWithOwner[]> {
    return this.request('GET', `/users/${encodeURIComponent(options.user ?? 'me')}/keys/tokens`, {
      query: { include_all: options.includeAll || undefined },
    });
  }

  tokenByName(name: string, user = 'me'): Promise<ApiKey> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/keys/tokens/${encodeURIComponent(name)}`);
  }

  apiKey(id: string, user = 'me'): Promise<ApiKey> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/keys/${encodeURIComponent(id)}`);
  }

  deleteApiKey(id: string, user = 'me'): Promise<void> {
    return this.request('DELETE', `/users/${encodeURIComponent(user)}/keys/${encodeURIComponent(id)}`);
  }

  tokenConfig(user = 'me'): Promise<TokenConfig> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/keys/tokens/tokenconfig`);
  }
}
