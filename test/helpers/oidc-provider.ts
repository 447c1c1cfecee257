import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import Provider, { type Configuration } from 'oidc-provider';
import type { Browser, Page } from './browser.js';

/** An account the provider knows; the account id is what the login form is given. */
export interface OidcAccount {
  readonly email: string;
  readonly emailVerified?: boolean;
  readonly preferredUsername?: string;
  readonly name?: string;
  /** Further claims, such as `groups` and `roles` (only the names in EXTRA_CLAIMS are released). */
  readonly extraClaims?: Readonly<Record<string, unknown>>;
}

/** Claims beyond the standard ones that the provider releases, with the openid scope. */
const EXTRA_CLAIMS = ['groups', 'roles'];

/** A real OpenID provider (oidc-provider) on the loopback interface, issuing real signed tokens. */
export interface TestOidcProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly accounts: Map<string, OidcAccount>;
  /** Registers the client's redirect URI; the provider refuses sign-ins until this is called. */
  allowRedirect(redirectUri: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the provider. It listens first, so a daemon can be configured with the issuer before the
 * client (which needs the daemon's redirect URI) is registered. With `foreignSigningKeys`, the
 * published keys are not the ones tokens are signed with: a second provider with the same issuer
 * and other keys serves `/jwks`, so every ID token is wrongly signed as far as clients can tell.
 */
export async function startOidcProvider(options: { readonly foreignSigningKeys?: boolean } = {}): Promise<TestOidcProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let jwksHandler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    const target = req.url?.startsWith('/jwks') && jwksHandler ? jwksHandler : handler;
    if (!target) {
      res.writeHead(503).end('not ready');
      return;
    }
    target(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, OidcAccount>();
  const clientId = 'cove';
  const clientSecret = 'cove-client-secret-for-tests';

  const configuration = async (redirectUri: string): Promise<Configuration> => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      jwks: {
        keys: [{ ...privateKey.export({ format: 'jwk' }), kid: `key-${Math.random().toString(36).slice(2)}`, alg: 'RS256', use: 'sig' }],
      },
      cookies: { keys: ['a cookie signing key for tests only'] },
      claims: { openid: ['sub', ...EXTRA_CLAIMS], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
      features: { devInteractions: { enabled: true } },
      pkce: { required: () => true },
      findAccount: (_ctx, id) => {
        const account = accounts.get(id);
        if (!account) return undefined;
        return {
          accountId: id,
          claims: () => ({
            sub: id,
            email: account.email,
            email_verified: account.emailVerified ?? true,
            ...(account.preferredUsername ? { preferred_username: account.preferredUsername } : {}),
            ...(account.name ? { name: account.name } : {}),
            ...account.extraClaims,
          }),
        };
      },
    };
  };

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    allowRedirect: async (redirectUri) => {
      handler = new Provider(issuer, await configuration(redirectUri)).callback();
      if (options.foreignSigningKeys) jwksHandler = new Provider(issuer, await configuration(redirectUri)).callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Goes through the provider's own sign-in as a user would: the login form (oidc-provider's
 * development pages take any password), then the consent form, and returns the redirect back to
 * the client, not yet followed.
 */
export async function signInAtProvider(browser: Browser, authorizationUrl: string, accountId: string): Promise<Page> {
  let hops = await browser.follow(authorizationUrl);
  for (let step = 0; step < 4; step++) {
    const last = hops.at(-1) as Page;
    if (last.status !== 200) break;
    if (/name="login"/.test(last.body))
      hops = await browser.submitStayingOn(last, { login: accountId, password: 'any' }, new URL(last.url).origin);
    else if (/name="prompt" value="consent"/.test(last.body) || /Authorize/.test(last.body))
      hops = await browser.submitStayingOn(last, {}, new URL(last.url).origin);
    else throw new Error(`unexpected provider page ${last.url}:\n${last.body.slice(0, 800)}`);
  }
  const back = hops.find((hop) => hop.location !== undefined && !hop.location.startsWith(new URL(authorizationUrl).origin));
  if (!back?.location)
    throw new Error(`the provider did not send the browser back:\n${hops.map((hop) => `${hop.status} ${hop.url}`).join('\n')}`);
  return back;
}
