import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import Provider, { type Adapter, type AdapterPayload, type Configuration } from 'oidc-provider';
import { Browser, type Page } from './browser.js';

/** An account of the OAuth2 server, described at `GET /user` the way GitHub describes its users. */
export interface OAuth2Account {
  readonly login: string;
  readonly id?: number;
  readonly name?: string;
  readonly avatarUrl?: string;
}

/** A real OAuth2 authorization server (oidc-provider) on the loopback interface. */
export interface TestOAuth2Server {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authUrl: string;
  readonly tokenUrl: string;
  readonly deviceCodeUrl: string;
  readonly revokeUrl: string;
  /** GitHub-like: 200 with the account for a live access token, 401 otherwise. */
  readonly validateUrl: string;
  /** The accounts the login form knows, by login; any unknown login is created on the spot. */
  readonly accounts: Map<string, OAuth2Account>;
  /** The `COVE_EXTERNAL_AUTH_<index>_*` variables of a provider pointing at this server. */
  env(index: number, overrides?: Readonly<Record<string, string>>): Record<string, string>;
  /** Registers one more redirect URI of the client (the server keeps every one registered). */
  allowRedirect(redirectUri: string): Promise<void>;
  /** How many refresh_token grants the token endpoint has answered successfully. */
  refreshGrants(): number;
  isLiveAccessToken(token: string): Promise<boolean>;
  /** Goes through login and consent over plain HTTP; returns the redirect back to the client (with code and state), not followed. */
  completeLogin(authorizeUrl: string, account?: string): Promise<string>;
  /** Enters a device flow's user code, logs in and consents, as a user would at the verification page. */
  completeDevice(userCode: string, account?: string): Promise<void>;
  /** Forgets every token, grant and session: every access and refresh token stops working. */
  revokeAll(): void;
  close(): Promise<void>;
}

/** The scopes the server knows; a provider may ask for any of them. */
const SCOPES = ['openid', 'offline_access', 'repo', 'read:user', 'user:email', 'read_user', 'write_repository'];

/**
 * Starts the server. Refresh tokens are issued with every code or device grant (without asking
 * for `offline_access`) and rotated at every use, so a client that reuses a refresh token is
 * refused as it would be by GitHub or GitLab. Access tokens are opaque and live
 * `accessTokenTtlSeconds` (default one hour).
 */
export async function startOAuth2Server(options: { readonly accessTokenTtlSeconds?: number } = {}): Promise<TestOAuth2Server> {
  const storage = new Map<string, Map<string, AdapterPayload>>();
  const modelStore = (model: string): Map<string, AdapterPayload> => {
    let store = storage.get(model);
    if (!store) {
      store = new Map();
      storage.set(model, store);
    }
    return store;
  };
  const liveAt = (payload: AdapterPayload | undefined): AdapterPayload | undefined =>
    payload && (payload.exp === undefined || payload.exp * 1000 > Date.now()) ? payload : undefined;
  class MapAdapter implements Adapter {
    readonly #model: string;
    constructor(model: string) {
      this.#model = model;
    }
    upsert(id: string, payload: AdapterPayload): Promise<void> {
      modelStore(this.#model).set(id, payload);
      return Promise.resolve();
    }
    find(id: string): Promise<AdapterPayload | undefined> {
      return Promise.resolve(liveAt(modelStore(this.#model).get(id)));
    }
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return Promise.resolve(liveAt([...modelStore(this.#model).values()].find((payload) => payload.userCode === userCode)));
    }
    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return Promise.resolve(liveAt([...modelStore(this.#model).values()].find((payload) => payload.uid === uid)));
    }
    consume(id: string): Promise<void> {
      const payload = modelStore(this.#model).get(id);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      return Promise.resolve();
    }
    destroy(id: string): Promise<void> {
      modelStore(this.#model).delete(id);
      return Promise.resolve();
    }
    revokeByGrantId(grantId: string): Promise<void> {
      for (const store of storage.values()) for (const [id, payload] of store) if (payload.grantId === grantId) store.delete(id);
      return Promise.resolve();
    }
  }

  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let provider: Provider | undefined;
  const accounts = new Map<string, OAuth2Account>();
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/user') {
      void answerUser(req, res);
      return;
    }
    if (!handler) {
      res.writeHead(503).end('not ready');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'cove-external-auth';
  const clientSecret = 'cove-external-auth-secret-for-tests';
  const redirectUris = new Set<string>(['http://127.0.0.1/unused']);
  let refreshGrants = 0;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'oauth2-test-key', alg: 'RS256', use: 'sig' };

  const accountFor = (login: string): OAuth2Account => {
    let account = accounts.get(login);
    if (!account) {
      account = { login, id: accounts.size + 1000, name: login };
      accounts.set(login, account);
    }
    return account;
  };

  const findLiveAccessToken = async (token: string): Promise<{ accountId: string } | undefined> => {
    if (!provider || token === '') return undefined;
    const found = await provider.AccessToken.find(token);
    if (!found || found.isExpired) return undefined;
    return { accountId: found.accountId };
  };

  async function answerUser(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const header = req.headers.authorization ?? '';
    const match = /^(?:bearer|token)\s+(\S+)$/i.exec(header);
    const live = match?.[1] ? await findLiveAccessToken(match[1]) : undefined;
    if (!live) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Bad credentials' }));
      return;
    }
    const account = accountFor(live.accountId);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: account.id ?? 1,
        login: account.login,
        name: account.name ?? account.login,
        avatar_url: account.avatarUrl ?? `${issuer}/avatars/${account.login}.png`,
        html_url: `${issuer}/${account.login}`,
      }),
    );
  }

  const build = (): void => {
    const configuration: Configuration = {
      adapter: MapAdapter,
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [...redirectUris],
          grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
          response_types: ['code'],
        },
      ],
      jwks: { keys: [signingKey] },
      cookies: { keys: ['an oauth2 cookie signing key for tests only'] },
      scopes: SCOPES,
      features: {
        devInteractions: { enabled: true },
        deviceFlow: { enabled: true },
        // Any client may revoke its own tokens; the server has one client.
        revocation: { enabled: true, allowedPolicy: () => true },
      },
      pkce: { required: () => false },
      ttl: {
        AccessToken: options.accessTokenTtlSeconds ?? 3600,
        RefreshToken: 24 * 3600,
        DeviceCode: 600,
        Interaction: 600,
        Session: 3600,
        Grant: 24 * 3600,
      },
      issueRefreshToken: (_ctx, client) => Promise.resolve(client.grantTypeAllowed('refresh_token')),
      rotateRefreshToken: () => true,
      findAccount: (_ctx, id) => {
        accountFor(id);
        return { accountId: id, claims: () => ({ sub: id }) };
      },
    };
    const next = new Provider(issuer, configuration);
    next.on('grant.success', (ctx) => {
      if (ctx.oidc.params?.['grant_type'] === 'refresh_token') refreshGrants++;
    });
    provider = next;
    handler = next.callback();
  };
  build();

  return {
    issuer,
    clientId,
    clientSecret,
    authUrl: `${issuer}/auth`,
    tokenUrl: `${issuer}/token`,
    deviceCodeUrl: `${issuer}/device/auth`,
    revokeUrl: `${issuer}/token/revocation`,
    validateUrl: `${issuer}/user`,
    accounts,
    env: (index, overrides = {}) => {
      const fields: Record<string, string> = {
        TYPE: 'oauth2-test',
        CLIENT_ID: clientId,
        CLIENT_SECRET: clientSecret,
        AUTH_URL: `${issuer}/auth`,
        TOKEN_URL: `${issuer}/token`,
        VALIDATE_URL: `${issuer}/user`,
        REVOKE_URL: `${issuer}/token/revocation`,
        DEVICE_CODE_URL: `${issuer}/device/auth`,
        SCOPES: 'repo',
        REGEX: '^https?://127\\.0\\.0\\.1(:\\d+)?/',
        ...overrides,
      };
      return Object.fromEntries(Object.entries(fields).map(([field, value]) => [`COVE_EXTERNAL_AUTH_${index}_${field}`, value]));
    },
    allowRedirect: (redirectUri) => {
      if (!redirectUris.has(redirectUri)) {
        redirectUris.add(redirectUri);
        build();
      }
      return Promise.resolve();
    },
    refreshGrants: () => refreshGrants,
    isLiveAccessToken: async (token) => (await findLiveAccessToken(token)) !== undefined,
    completeLogin: async (authorizeUrl, account = 'octocat') => {
      const browser = new Browser();
      const hops = await interact(browser, await browser.follow(authorizeUrl), account);
      const back = hops.find((hop) => hop.location !== undefined && !sameOrigin(hop.location, issuer));
      if (!back?.location)
        throw new Error(`the server did not send the browser back:\n${hops.map((hop) => `${hop.status} ${hop.url}`).join('\n')}`);
      return back.location;
    },
    completeDevice: async (userCode, account = 'octocat') => {
      const browser = new Browser();
      const entry = (await browser.follow(`${issuer}/device`)).at(-1) as Page;
      const hops = await interact(browser, await browser.submitStayingOn(entry, { user_code: userCode }, issuer), account);
      const last = hops.at(-1) as Page;
      if (last.status !== 200 || !/success|sign-in complete|you can close/i.test(last.body))
        throw new Error(`the device flow did not complete (${last.status} ${last.url}):\n${last.body.slice(0, 800)}`);
    },
    revokeAll: () => {
      for (const model of ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'DeviceCode', 'Grant', 'Session'])
        storage.get(model)?.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  /** Answers the login and consent pages until the server stops showing its own forms. */
  async function interact(browser: Browser, start: Page[], account: string): Promise<Page[]> {
    let hops = start;
    const all = [...hops];
    for (let step = 0; step < 4; step++) {
      const last = hops.at(-1) as Page;
      if (last.status !== 200 || !sameOrigin(last.url, issuer)) break;
      if (/name="login"/.test(last.body)) hops = await browser.submitStayingOn(last, { login: account, password: 'any' }, issuer);
      else if (/name="prompt" value="consent"/.test(last.body)) hops = await browser.submitStayingOn(last, {}, issuer);
      else if (/name="confirm"/.test(last.body)) hops = await browser.submitStayingOn(last, { confirm: 'yes' }, issuer);
      else break;
      all.push(...hops);
    }
    return all;
  }
}

/** Whether `url` is on `origin` (a prefix test would take port 40001 for port 4000). */
function sameOrigin(url: string, origin: string): boolean {
  return new URL(url).origin === origin;
}
