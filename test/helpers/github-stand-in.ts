import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A GitHub account the stand-in knows. */
export interface GithubAccount {
  readonly id: number;
  readonly login: string;
  readonly name?: string;
  readonly emails: readonly { readonly email: string; readonly primary: boolean; readonly verified: boolean }[];
  /** Organizations the account is an active member of. */
  readonly orgs?: readonly string[];
  /** Teams, as organization/team-slug, the account is an active member of. */
  readonly teams?: readonly string[];
}

/**
 * A local stand-in that imitates an external service, GitHub, as a GitHub Enterprise Server lays
 * it out under one base URL: the OAuth web flow at /login/oauth/authorize and
 * /login/oauth/access_token, and the REST endpoints sign-in reads under /api/v3. It checks what
 * GitHub checks (client id and secret, redirect URI, single-use codes, the PKCE verifier) and
 * answers in GitHub's shapes, including a refused code exchange as 200 with an `error` field.
 * The browser is taken to be signed in to GitHub as `signedInAs` and to have authorized the app
 * before, so the authorize page redirects straight back as GitHub does then.
 */
export class GithubStandIn {
  readonly clientId = 'cove-github-client';
  readonly clientSecret = 'cove-github-secret-for-tests';
  readonly accounts = new Map<string, GithubAccount>();
  /** The login of the account the browser is signed in to GitHub with. */
  signedInAs = '';
  /** Requests to the API, for tests that check what was asked. */
  readonly apiCalls: string[] = [];
  readonly #codes = new Map<string, { login: string; redirectUri: string; challenge: string | undefined }>();
  readonly #tokens = new Map<string, string>();
  readonly #server: Server;
  #baseUrl = '';

  private constructor() {
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      });
    });
  }

  static async start(): Promise<GithubStandIn> {
    const standIn = new GithubStandIn();
    await new Promise<void>((resolve) => standIn.#server.listen(0, '127.0.0.1', resolve));
    standIn.#baseUrl = `http://127.0.0.1:${(standIn.#server.address() as AddressInfo).port}`;
    return standIn;
  }

  /** What --oauth2-github-enterprise-base-url is set to. */
  get baseUrl(): string {
    return this.#baseUrl;
  }

  add(account: GithubAccount): void {
    this.accounts.set(account.login, account);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.#baseUrl);
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') return this.#authorize(url, res);
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') return this.#accessToken(await readBody(req), res);
    if (req.method === 'GET' && url.pathname.startsWith('/api/v3/')) return this.#api(req, url, res);
    json(res, 404, { message: 'Not Found' });
  }

  #authorize(url: URL, res: ServerResponse): void {
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    if (url.searchParams.get('client_id') !== this.clientId || !redirectUri) {
      res
        .writeHead(400, { 'content-type': 'text/html' })
        .end('<p>The redirect_uri MUST match the registered callback URL for this application.</p>');
      return;
    }
    const code = randomBytes(10).toString('hex');
    this.#codes.set(code, { login: this.signedInAs, redirectUri, challenge: url.searchParams.get('code_challenge') ?? undefined });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = url.searchParams.get('state');
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.toString() }).end();
  }

  #accessToken(body: string, res: ServerResponse): void {
    const form = new URLSearchParams(body);
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) {
      json(res, 200, {
        error: 'incorrect_client_credentials',
        error_description: 'The client_id and/or client_secret passed are incorrect.',
      });
      return;
    }
    const code = form.get('code') ?? '';
    const grant = this.#codes.get(code);
    this.#codes.delete(code);
    const verifier = form.get('code_verifier') ?? '';
    const challengeOk = grant?.challenge === undefined || createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
    if (!grant || grant.redirectUri !== form.get('redirect_uri') || !challengeOk) {
      json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
      return;
    }
    const token = `gho_${randomBytes(16).toString('hex')}`;
    this.#tokens.set(token, grant.login);
    json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:org,read:user,user:email' });
  }

  #api(req: IncomingMessage, url: URL, res: ServerResponse): void {
    this.apiCalls.push(`${url.pathname}${url.search}`);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const account = this.accounts.get(this.#tokens.get(token) ?? '');
    if (!account) {
      json(res, 401, { message: 'Bad credentials' });
      return;
    }
    const path = url.pathname.slice('/api/v3'.length);
    if (path === '/user') {
      json(res, 200, {
        id: account.id,
        login: account.login,
        name: account.name ?? null,
        avatar_url: `${this.#baseUrl}/avatars/${account.login}`,
      });
      return;
    }
    if (path === '/user/emails') {
      json(
        res,
        200,
        account.emails.map((entry) => ({ ...entry, visibility: entry.primary ? 'private' : null })),
      );
      return;
    }
    if (path === '/user/memberships/orgs') {
      json(
        res,
        200,
        (account.orgs ?? []).map((org) => ({ state: 'active', role: 'member', organization: { login: org } })),
      );
      return;
    }
    const team = /^\/orgs\/([^/]+)\/teams\/([^/]+)\/memberships\/([^/]+)$/.exec(path);
    if (team) {
      const [, org, slug, login] = team;
      const member = this.accounts
        .get(decodeURIComponent(login ?? ''))
        ?.teams?.includes(`${decodeURIComponent(org ?? '')}/${decodeURIComponent(slug ?? '')}`);
      if (member) json(res, 200, { state: 'active', role: 'member' });
      else json(res, 404, { message: 'Not Found' });
      return;
    }
    json(res, 404, { message: 'Not Found' });
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
