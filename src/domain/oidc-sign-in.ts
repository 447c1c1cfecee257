import * as oidc from 'openid-client';
import { HttpProblem } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';
import type { DeploymentValues } from './deployment-options.js';
import type { ExternalIdentity } from './external-sign-in.js';
import { checkAllowedGroups, idpSyncSettings, type IdpSyncSettings } from './idp-sync.js';
import type { PendingSignIn } from './sign-in-state.js';

/** The part of the settings OIDC sign-in reads. */
type OidcSettings = Pick<
  DeploymentValues,
  | 'oidcIssuerUrl'
  | 'oidcClientId'
  | 'oidcClientSecret'
  | 'oidcEmailDomain'
  | 'oidcIgnoreEmailVerified'
  | 'oidcUsernameField'
  | 'oidcNameField'
  | 'oidcEmailField'
  | 'oidcScopes'
  | 'oidcGroupField'
  | 'oidcGroupMapping'
  | 'oidcGroupRegexFilter'
  | 'oidcGroupAutoCreate'
  | 'oidcAllowedGroups'
  | 'oidcUserRoleField'
  | 'oidcUserRoleMapping'
>;

/**
 * OpenID Connect sign-in with a certified client library: discovery from the issuer, the
 * authorization code flow with PKCE, state and nonce, ID token signature and claims checked against
 * the provider's keys, and the userinfo answer checked to be about the same subject. Time comes
 * from the daemon's clock, so expiry follows the same clock as everything else.
 */
export class OidcSignIn {
  readonly #settings: OidcSettings;
  readonly #clock: Clock;
  readonly #redirectUri: string;
  readonly #sync: IdpSyncSettings;
  #discovered: Promise<oidc.Configuration> | undefined;
  /** The provider's signing keys as last fetched, kept between sign-ins. */
  #keys: oidc.ExportedJWKSCache | undefined;

  constructor(settings: OidcSettings, clock: Clock, redirectUri: string) {
    this.#settings = settings;
    this.#clock = clock;
    this.#redirectUri = redirectUri;
    this.#sync = idpSyncSettings(settings);
  }

  /** Where to send the browser to sign in at the provider. */
  async authorizationUrl(pending: PendingSignIn): Promise<URL> {
    const config = await this.#configuration();
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.#redirectUri,
      scope: this.#settings.oidcScopes.join(' '),
      response_type: 'code',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  /**
   * Exchanges the code the provider sent back for tokens, verifies them, and applies the
   * deployment's rules to the claims: email present, verified unless told to ignore that, and in
   * an allowed domain.
   */
  async identity(callbackQuery: URLSearchParams, pending: PendingSignIn): Promise<ExternalIdentity> {
    const providerError = callbackQuery.get('error');
    if (providerError) {
      const description = callbackQuery.get('error_description');
      throw new HttpProblem(400, 'The OpenID Connect provider refused the sign-in.', {
        detail: description ? `${providerError}: ${description}` : providerError,
      });
    }
    const config = await this.#configurationNow();
    const currentUrl = new URL(this.#redirectUri);
    currentUrl.search = callbackQuery.toString();
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      this.#keys = oidc.getJwksCache(config) ?? this.#keys;
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error('the token response has no ID token');
      claims = { ...idClaims };
      if (config.serverMetadata().userinfo_endpoint) {
        // The userinfo answer adds claims the ID token may leave out; it must be about the same subject.
        const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        claims = { ...claims, ...userinfo, sub: idClaims.sub };
      }
    } catch (error) {
      throw new HttpProblem(401, 'The OpenID Connect sign-in could not be verified.', { detail: describe(error) });
    }
    return this.#applyRules(claims);
  }

  #applyRules(claims: Record<string, unknown>): ExternalIdentity {
    const settings = this.#settings;
    const email = claims[settings.oidcEmailField];
    if (typeof email !== 'string' || !email.includes('@')) {
      throw new HttpProblem(400, `Your OpenID Connect provider sent no email address in the "${settings.oidcEmailField}" claim.`, {
        detail: `Ask an administrator to add the email scope, or to set --oidc-email-field to the claim that holds it.`,
      });
    }
    if (claims['email_verified'] === false && !settings.oidcIgnoreEmailVerified) {
      throw new HttpProblem(403, `Verify the "${email}" email address on your OIDC provider to authenticate!`);
    }
    if (settings.oidcEmailDomain.length > 0) {
      const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
      if (!settings.oidcEmailDomain.some((allowed) => allowed.toLowerCase() === domain)) {
        throw new HttpProblem(403, `Your email "${email}" is not in domains ${JSON.stringify(settings.oidcEmailDomain)}!`);
      }
    }
    // Refused before any account is looked up or made: the user is not to be let in at all.
    checkAllowedGroups(this.#sync, claims);
    const username = claims[settings.oidcUsernameField];
    const name = claims[settings.oidcNameField];
    const picture = claims['picture'];
    return {
      loginType: 'oidc',
      linkedId: String(claims['sub']),
      email,
      username: typeof username === 'string' ? username : email.slice(0, email.indexOf('@')),
      name: typeof name === 'string' ? name : '',
      avatarUrl: typeof picture === 'string' ? picture : '',
      claims,
    };
  }

  /** The provider's metadata, discovered once; a failed discovery is tried again on the next sign-in. */
  #configuration(): Promise<oidc.Configuration> {
    this.#discovered ??= this.#discover().catch((error: unknown) => {
      this.#discovered = undefined;
      throw new HttpProblem(502, 'The OpenID Connect provider could not be reached.', {
        detail: `Discovery at ${this.#settings.oidcIssuerUrl} failed: ${describe(error)}`,
      });
    });
    return this.#discovered;
  }

  async #discover(): Promise<oidc.Configuration> {
    const settings = this.#settings;
    const insecure = new URL(settings.oidcIssuerUrl).protocol === 'http:';
    return oidc.discovery(
      new URL(settings.oidcIssuerUrl),
      settings.oidcClientId,
      settings.oidcClientSecret ? { client_secret: settings.oidcClientSecret } : undefined,
      settings.oidcClientSecret ? oidc.ClientSecretBasic(settings.oidcClientSecret) : oidc.None(),
      // An http issuer is the operator's choice (a provider on the same host or network).
      insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
    );
  }

  /** The discovered configuration with the clock as it reads now; the provider's keys stay cached. */
  async #configurationNow(): Promise<oidc.Configuration> {
    const discovered = await this.#configuration();
    const settings = this.#settings;
    const skewSeconds = Math.round((this.#clock.now().getTime() - Date.now()) / 1000);
    const config = new oidc.Configuration(
      discovered.serverMetadata(),
      settings.oidcClientId,
      { ...(settings.oidcClientSecret ? { client_secret: settings.oidcClientSecret } : {}), [oidc.clockSkew]: skewSeconds },
      settings.oidcClientSecret ? oidc.ClientSecretBasic(settings.oidcClientSecret) : oidc.None(),
    );
    if (new URL(settings.oidcIssuerUrl).protocol === 'http:') oidc.allowInsecureRequests(config);
    // The library trusts the TLS connection for an ID token from the token endpoint unless told to
    // check its signature too; an http issuer has no TLS to trust, and a key mix-up should show.
    oidc.enableNonRepudiationChecks(config);
    if (this.#keys) oidc.setJwksCache(config, this.#keys);
    return config;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
