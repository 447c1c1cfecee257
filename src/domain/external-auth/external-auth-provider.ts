import type { ExternalAuthDevice, ExternalAuthUser } from '../../sdk/wire/index.js';

/**
 * One configured external auth provider (a git provider or another OAuth2 app), with the
 * defaults of its type already filled in. Built once at start from the deployment's settings.
 */
export interface ExternalAuthProvider {
  /** Unique among the providers; defaults to the type. */
  readonly id: string;
  /** `github`, `gitlab`, `bitbucket-cloud`, `bitbucket-server`, `azure-devops`, `azure-devops-entra`, `gitea`, `jfrog`, `slack`, or any other name for a generic OAuth2 provider. */
  readonly type: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authUrl: string;
  readonly tokenUrl: string;
  /** Where an access token is checked (and its user described); empty: tokens are not validated. */
  readonly validateUrl: string;
  /** Where a token is revoked on unlink; empty: it cannot be. */
  readonly revokeUrl: string;
  readonly deviceFlow: boolean;
  /** The device authorization endpoint, when `deviceFlow`. */
  readonly deviceCodeUrl: string;
  /** The refresh token is never used: every expiry asks the user to link again. */
  readonly noRefresh: boolean;
  readonly scopes: readonly string[];
  /** Fields of the token endpoint's answer kept beside the token (`token_extra`). */
  readonly extraTokenKeys: readonly string[];
  /** Matched against a git remote URL (https or SSH form) to find the provider of a clone. */
  readonly regex: RegExp;
  readonly displayName: string;
  readonly displayIcon: string;
  readonly appInstallUrl: string;
  readonly appInstallationsUrl: string;
  /** PKCE methods the provider supports; `S256` or none. */
  readonly codeChallengeMethodsSupported: readonly string[];
}

/** What a token endpoint answered, as kept for a link. */
export interface OAuthToken {
  readonly accessToken: string;
  /** Empty when the provider gave none. */
  readonly refreshToken: string;
  /** Null when the access token does not expire. */
  readonly expiry: Date | null;
  /** The provider's fields named by `extraTokenKeys`. */
  readonly extra: Readonly<Record<string, unknown>>;
}

/** The provider refused a grant or a token (as opposed to being unreachable): the user must link again. */
export class OAuthRefusedError extends Error {
  /** The OAuth error code, such as `invalid_grant`, `authorization_pending` or `slow_down`. */
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'OAuthRefusedError';
    this.code = code;
  }
}

/** The result of asking a provider's validate URL about an access token. */
export interface TokenValidation {
  readonly valid: boolean;
  /** The account, when the validate URL describes it. */
  readonly user: ExternalAuthUser | null;
}

/**
 * The OAuth2 conversations with providers. Every call talks to the provider over HTTP; failures
 * of the provider to answer are thrown as plain errors, refusals as OAuthRefusedError.
 */
export interface ExternalAuthOAuth {
  /** Where to send the browser to link: the provider's auth URL with state, scopes and PKCE (S256 when supported). */
  authorizationUrl(
    provider: ExternalAuthProvider,
    input: { readonly redirectUri: string; readonly state: string; readonly codeVerifier: string },
  ): URL;
  /** Exchanges the authorization code the provider sent to `redirectUri`. */
  exchangeCode(
    provider: ExternalAuthProvider,
    input: { readonly code: string; readonly redirectUri: string; readonly codeVerifier: string },
  ): Promise<OAuthToken>;
  /** A new access token from a refresh token; OAuthRefusedError when the provider refuses it. */
  refresh(provider: ExternalAuthProvider, refreshToken: string): Promise<OAuthToken>;
  /** Asks the validate URL; `valid: true` when the provider has none. */
  validate(provider: ExternalAuthProvider, accessToken: string): Promise<TokenValidation>;
  /** Revokes a token at the revoke URL. */
  revoke(provider: ExternalAuthProvider, token: OAuthToken): Promise<void>;
  /** Starts a device authorization. */
  startDevice(provider: ExternalAuthProvider): Promise<ExternalAuthDevice>;
  /** Exchanges a device code; OAuthRefusedError `authorization_pending` until the user has entered the code. */
  exchangeDevice(provider: ExternalAuthProvider, deviceCode: string): Promise<OAuthToken>;
}

/** How git presents a provider's token: the username and password its HTTP servers expect. */
export interface GitCredentials {
  readonly username: string;
  readonly password: string;
}
