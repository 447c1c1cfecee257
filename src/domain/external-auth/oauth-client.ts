import * as oidc from 'openid-client';
import { createHash } from 'node:crypto';
import { systemClock, type Clock } from '../../lib/clock.js';
import type { ExternalAuthDevice, ExternalAuthUser } from '../../sdk/wire/index.js';
import {
  OAuthRefusedError,
  type ExternalAuthOAuth,
  type ExternalAuthProvider,
  type OAuthToken,
  type TokenValidation,
} from './external-auth-provider.js';

/** Every conversation with a provider is bounded by this, so a hung provider cannot hold a request or a git clone. */
const TIMEOUT_SECONDS = 10;

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** Azure DevOps (not Entra) exchanges its code as a JWT bearer assertion, the client secret as the client's. */
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const JWT_BEARER_CLIENT_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Azure DevOps' application id: Entra issues it v1 tokens, which name a resource rather than scopes. */
const AZURE_DEVOPS_RESOURCE = '499b84ac-1321-427f-aa17-267ca6975798';

/**
 * How a configuration authenticates the client at the token endpoint: the secret in the body
 * (or none for a public client); none beyond the client id, for Azure DevOps' assertion; or, as
 * JFrog Artifactory wants for its code exchange, the secret as a bearer token besides.
 */
type ClientAuthVariant = 'standard' | 'assertion' | 'secret-bearer';

/**
 * The OAuth2 client of external auth, on openid-client's plain OAuth2 functions (no discovery:
 * providers are configured with their endpoints). Token endpoint answers are brought to the
 * standard's form first, since the popular providers bend it: GitHub answers 200 with an `error`,
 * and form-encoded bodies unless asked for JSON; Slack's token type is `bot` or `user`.
 */
export class OAuthClient implements ExternalAuthOAuth {
  readonly #fetch: typeof fetch;
  readonly #clock: Clock;
  /** Built once per provider: openid-client configurations hold no per-request state. */
  readonly #configurations = new Map<string, oidc.Configuration>();

  /**
   * `clock` dates a token's expiry (`expires_in` from now), so expiry follows the daemon's clock
   * like every other; `fetch` is the network.
   */
  constructor(options: { readonly clock?: Clock; readonly fetch?: typeof fetch } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  authorizationUrl(
    provider: ExternalAuthProvider,
    input: { readonly redirectUri: string; readonly state: string; readonly codeVerifier: string },
  ): URL {
    const url = new URL(provider.authUrl);
    url.searchParams.set('client_id', provider.clientId);
    url.searchParams.set('redirect_uri', input.redirectUri);
    url.searchParams.set('response_type', provider.type === 'azure-devops' ? 'Assertion' : 'code');
    if (provider.type === 'azure-devops-entra') url.searchParams.set('resource', AZURE_DEVOPS_RESOURCE);
    if (provider.scopes.length > 0) url.searchParams.set('scope', provider.scopes.join(' '));
    url.searchParams.set('state', input.state);
    if (usesPkce(provider)) {
      url.searchParams.set('code_challenge', s256(input.codeVerifier));
      url.searchParams.set('code_challenge_method', 'S256');
    }
    return url;
  }

  async exchangeCode(
    provider: ExternalAuthProvider,
    input: { readonly code: string; readonly redirectUri: string; readonly codeVerifier: string },
  ): Promise<OAuthToken> {
    if (provider.type === 'azure-devops') {
      const assertion = {
        client_assertion_type: JWT_BEARER_CLIENT_ASSERTION,
        client_assertion: provider.clientSecret,
        assertion: input.code,
        redirect_uri: input.redirectUri,
      };
      return this.#grant(provider, () => oidc.genericGrantRequest(this.#configuration(provider, 'assertion'), JWT_BEARER_GRANT, assertion));
    }
    const parameters: Record<string, string> = { code: input.code, redirect_uri: input.redirectUri };
    if (usesPkce(provider)) parameters['code_verifier'] = input.codeVerifier;
    if (provider.type === 'azure-devops-entra') parameters['resource'] = AZURE_DEVOPS_RESOURCE;
    const variant = provider.type === 'jfrog' ? 'secret-bearer' : 'standard';
    return this.#grant(provider, () => oidc.genericGrantRequest(this.#configuration(provider, variant), 'authorization_code', parameters));
  }

  async refresh(provider: ExternalAuthProvider, refreshToken: string): Promise<OAuthToken> {
    if (refreshToken === '') throw new OAuthRefusedError('invalid_grant', `${provider.id} gave no refresh token: link again`);
    return this.#grant(provider, () => oidc.refreshTokenGrant(this.#configuration(provider), refreshToken));
  }

  async validate(provider: ExternalAuthProvider, accessToken: string): Promise<TokenValidation> {
    if (provider.validateUrl === '') return { valid: true, user: null };
    const response = await this.#send(provider, provider.validateUrl, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    });
    if (response.status === 401 || response.status === 403) return { valid: false, user: null };
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${provider.id}: the validate URL answered ${response.status}: ${body.slice(0, 200)}`);
    return { valid: true, user: describedUser(body) };
  }

  async revoke(provider: ExternalAuthProvider, token: OAuthToken): Promise<void> {
    if (provider.revokeUrl === '') return;
    if (provider.type === 'github') {
      // GitHub's own API rather than RFC 7009: deleting the app's authorization, by client credentials.
      const response = await this.#send(provider, provider.revokeUrl, {
        method: 'DELETE',
        headers: {
          authorization: `Basic ${Buffer.from(`${provider.clientId}:${provider.clientSecret}`).toString('base64')}`,
          accept: 'application/vnd.github+json',
          'x-github-api-version': '2022-11-28',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ access_token: token.accessToken }),
      });
      if (response.status !== 204)
        throw new Error(`${provider.id}: revocation answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
      return;
    }
    // RFC 7009; revoking the refresh token revokes the grant, access token included.
    const [value, hint] = token.refreshToken !== '' ? [token.refreshToken, 'refresh_token'] : [token.accessToken, 'access_token'];
    await this.#call(provider, () => oidc.tokenRevocation(this.#configuration(provider), value, { token_type_hint: hint }));
  }

  async startDevice(provider: ExternalAuthProvider): Promise<ExternalAuthDevice> {
    if (!provider.deviceFlow || provider.deviceCodeUrl === '') throw new Error(`${provider.id} has no device flow`);
    const parameters: Record<string, string> = {};
    if (provider.scopes.length > 0) parameters['scope'] = provider.scopes.join(' ');
    const answer = await this.#call(provider, () => oidc.initiateDeviceAuthorization(this.#configuration(provider), parameters));
    return {
      device_code: answer.device_code,
      user_code: answer.user_code,
      verification_uri: answer.verification_uri,
      expires_in: Math.trunc(answer.expires_in),
      interval: Math.trunc(answer.interval ?? 5),
    };
  }

  async exchangeDevice(provider: ExternalAuthProvider, deviceCode: string): Promise<OAuthToken> {
    return this.#grant(provider, () =>
      oidc.genericGrantRequest(this.#configuration(provider), DEVICE_CODE_GRANT, { device_code: deviceCode }),
    );
  }

  async #grant(provider: ExternalAuthProvider, request: () => Promise<oidc.TokenEndpointResponse>): Promise<OAuthToken> {
    const answer = await this.#call(provider, request);
    const extra: Record<string, unknown> = {};
    for (const key of provider.extraTokenKeys) if (answer[key] !== undefined) extra[key] = answer[key];
    return {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token ?? '',
      expiry:
        typeof answer.expires_in === 'number' && answer.expires_in > 0
          ? new Date(this.#clock.now().getTime() + answer.expires_in * 1000)
          : null,
      extra,
    };
  }

  /** Runs an openid-client call, telling a refusal (the provider's OAuth error) from a failure to talk to it. */
  async #call<T>(provider: ExternalAuthProvider, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError)
        throw new OAuthRefusedError(error.error, `${provider.id}: ${error.error_description ?? error.error}`);
      throw new Error(`${provider.id}: ${describe(error)}`, { cause: error });
    }
  }

  async #send(provider: ExternalAuthProvider, url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.#fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_SECONDS * 1000) });
    } catch (error) {
      throw new Error(`${provider.id}: ${describe(error)}`, { cause: error });
    }
  }

  #configuration(provider: ExternalAuthProvider, variant: ClientAuthVariant = 'standard'): oidc.Configuration {
    const key = `${variant}\n${provider.id}\n${provider.clientId}\n${provider.tokenUrl}`;
    const known = this.#configurations.get(key);
    if (known) return known;
    const server: oidc.ServerMetadata = {
      issuer: new URL(provider.tokenUrl || provider.authUrl).origin,
      authorization_endpoint: provider.authUrl,
      token_endpoint: provider.tokenUrl,
      ...(provider.revokeUrl !== '' ? { revocation_endpoint: provider.revokeUrl } : {}),
      ...(provider.deviceCodeUrl !== '' ? { device_authorization_endpoint: provider.deviceCodeUrl } : {}),
    };
    // Providers that authenticate clients by the secret in the body (GitHub, GitLab, Slack) are
    // the common case; a provider without a secret is a public client.
    const withSecret = provider.clientSecret !== '' && variant !== 'assertion';
    const configuration = new oidc.Configuration(
      server,
      provider.clientId,
      withSecret ? { client_secret: provider.clientSecret } : undefined,
      withSecret ? oidc.ClientSecretPost(provider.clientSecret) : oidc.None(),
    );
    configuration.timeout = TIMEOUT_SECONDS;
    const extraHeaders: Record<string, string> = variant === 'secret-bearer' ? { authorization: `Bearer ${provider.clientSecret}` } : {};
    configuration[oidc.customFetch] = (url, options) =>
      this.#standardFetch(url, { ...options, headers: { ...options.headers, ...extraHeaders } });
    // Self-hosted providers on plain HTTP are the deployer's choice (and every test's).
    if (new URL(provider.tokenUrl).protocol === 'http:') oidc.allowInsecureRequests(configuration);
    this.#configurations.set(key, configuration);
    return configuration;
  }

  /** Asks for JSON and rewrites a token endpoint's non-standard answer into the standard's form. */
  async #standardFetch(url: string, options: oidc.CustomFetchOptions): Promise<Response> {
    const response = await this.#fetch(url, {
      method: options.method,
      headers: { ...options.headers, accept: 'application/json' },
      body: options.body ?? null,
      redirect: options.redirect,
      signal: options.signal ?? null,
    });
    const text = await response.text();
    let body: Record<string, unknown> | undefined;
    if ((response.headers.get('content-type') ?? '').includes('application/x-www-form-urlencoded'))
      body = Object.fromEntries(new URLSearchParams(text));
    else {
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
      } catch {
        body = undefined;
      }
    }
    if (!body) return new Response(text, { status: response.status, headers: response.headers });
    let status = response.status;
    if (status === 200 && typeof body['error'] === 'string' && typeof body['access_token'] !== 'string') status = 400;
    if (typeof body['access_token'] === 'string' && !/^(bearer|dpop)$/i.test(String(body['token_type'] ?? '')))
      body['token_type'] = 'bearer';
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }
}

/** Whether the authorization carries a PKCE challenge: when the provider supports S256. */
function usesPkce(provider: ExternalAuthProvider): boolean {
  return provider.codeChallengeMethodsSupported.includes('S256');
}

function s256(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier).digest('base64url');
}

/** The account a validate URL describes, when its body is GitHub-like (`login` and a numeric `id`). */
function describedUser(body: string): ExternalAuthUser | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object') return null;
  const user = parsed as Record<string, unknown>;
  if (typeof user['login'] !== 'string') return null;
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  return {
    id: typeof user['id'] === 'number' && Number.isInteger(user['id']) ? user['id'] : 0,
    login: user['login'],
    avatar_url: text(user['avatar_url']),
    profile_url: text(user['html_url']),
    name: text(user['name']),
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
