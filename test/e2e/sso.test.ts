import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Browser } from '../helpers/browser.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { createTestDatabase, RUN_DATABASE, serveDatabaseArgs, type TestDatabase } from '../helpers/databases.js';
import { GithubStandIn } from '../helpers/github-stand-in.js';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/**
 * `bin/cove serve` configured with a real OpenID provider and the GitHub stand-in on the loopback
 * interface; a browser made of fetch and a cookie jar signs in through each, as a user would.
 */
describe('single sign-on end to end', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-e2e-sso-'));
  let provider: TestOidcProvider;
  let github: GithubStandIn;
  let server: ChildProcess | undefined;
  let database: TestDatabase | undefined;
  let url: string;
  let ownerToken: string;

  async function api<T>(path: string, token: string): Promise<{ status: number; body: T }> {
    const response = await fetch(`${url}/api/v2${path}`, { headers: { 'service-session-token': token } });
    return { status: response.status, body: (await response.json()) as T };
  }

  async function userCount(): Promise<number> {
    return (await api<{ count: number }>('/users', ownerToken)).body.count;
  }

  async function me(browser: Browser): Promise<{ username: string; login_type: string; email: string }> {
    // The browser's session cookie is what a page on the deployment would send.
    const response = await fetch(`${url}/api/v2/users/me`, {
      headers: { cookie: `service_session_token=${browser.cookie(url, 'service_session_token') ?? ''}` },
    });
    assert.equal(response.status, 200);
    return (await response.json()) as { username: string; login_type: string; email: string };
  }

  before(async () => {
    provider = await startOidcProvider();
    provider.accounts.set('olive-sub', { email: 'olive@example.com', preferredUsername: 'olive', name: 'Olive Oyl' });
    github = await GithubStandIn.start();
    github.add({ id: 7, login: 'gus', emails: [{ email: 'gus@example.com', primary: true, verified: true }], orgs: ['acme'] });
    github.add({ id: 8, login: 'stranger', emails: [{ email: 'stranger@example.com', primary: true, verified: true }], orgs: ['initech'] });
    database = await createTestDatabase(RUN_DATABASE);
    const args = ['serve', '--http-address', '127.0.0.1:0', '--data-dir', dataDir, '--provisioner-daemons', '0'];
    server = spawn(COVE, [...args, ...serveDatabaseArgs(database)], {
      env: {
        ...process.env,
        COVE_OIDC_ISSUER_URL: provider.issuer,
        COVE_OIDC_CLIENT_ID: provider.clientId,
        COVE_OIDC_CLIENT_SECRET: provider.clientSecret,
        COVE_OAUTH2_GITHUB_CLIENT_ID: github.clientId,
        COVE_OAUTH2_GITHUB_CLIENT_SECRET: github.clientSecret,
        COVE_OAUTH2_GITHUB_ENTERPRISE_BASE_URL: github.baseUrl,
        COVE_OAUTH2_GITHUB_ALLOWED_ORGS: 'acme',
        COVE_OAUTH2_GITHUB_ALLOW_SIGNUPS: 'true',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await waitFor(server, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
    await provider.allowRedirect(`${url}/api/v2/users/oidc/callback`);
    const first = await fetch(`${url}/api/v2/users/first`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.com', username: 'owner', password: STRONG_PASSWORD }),
    });
    assert.equal(first.status, 201);
    const login = await fetch(`${url}/api/v2/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.com', password: STRONG_PASSWORD }),
    });
    ownerToken = ((await login.json()) as { session_token: string }).session_token;
  });

  after(async () => {
    await stop(server);
    await provider?.close();
    await github?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says both providers are on', async () => {
    const response = await fetch(`${url}/api/v2/users/authmethods`);
    const methods = (await response.json()) as { oidc: { enabled: boolean }; github: { enabled: boolean } };
    assert.equal(methods.oidc.enabled, true);
    assert.equal(methods.github.enabled, true);
  });

  it('signs in through the OpenID provider: login form, consent, back signed in', async () => {
    const browser = new Browser();
    const start = await browser.request(`${url}/api/v2/users/oidc/callback?redirect=%2Fcli-auth`);
    assert.equal(start.status, 307);
    assert.ok(start.location?.startsWith(`${provider.issuer}/`), start.location);
    const back = await signInAtProvider(browser, start.location ?? '', 'olive-sub');
    const landed = await browser.request(back.location ?? '');
    assert.equal(landed.status, 307, landed.body);
    assert.equal(landed.location, `${url}/cli-auth`);
    const olive = await me(browser);
    assert.equal(olive.login_type, 'oidc');
    assert.equal(olive.username, 'olive');
    assert.equal(olive.email, 'olive@example.com');
  });

  it('signs in through GitHub, and refuses a user of no allowed organization without creating one', async () => {
    const browser = new Browser();
    github.signedInAs = 'gus';
    const hops = await browser.follow(`${url}/api/v2/users/oauth2/github/callback`);
    assert.deepEqual(
      hops.map((hop) => hop.status),
      [307, 302, 307, 200],
      'daemon → GitHub → daemon → the dashboard at /',
    );
    const gus = await me(browser);
    assert.equal(gus.login_type, 'github');
    assert.equal(gus.username, 'gus');

    const before = await userCount();
    github.signedInAs = 'stranger';
    const refused = await new Browser().follow(`${url}/api/v2/users/oauth2/github/callback`);
    const page = refused.at(-1);
    assert.equal(page?.status, 401);
    assert.match(page?.body ?? '', /authorized Github organizations/);
    assert.equal(await userCount(), before);
  });
});
