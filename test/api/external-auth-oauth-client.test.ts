import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import type { ExternalAuthConfig } from '../../src/sdk/wire/index.js';
import { OAuthRefusedError, type ExternalAuthProvider } from '../../src/domain/external-auth/external-auth-provider.js';
import { OAuthClient } from '../../src/domain/external-auth/oauth-client.js';
import { readExternalAuthProviders } from '../../src/domain/options/external-auth.js';
import { startOAuth2Server, type TestOAuth2Server } from '../helpers/oauth2-server.js';
import { createOwner, startTestDaemon } from '../helpers/test-daemon.js';

const REDIRECT = 'http://127.0.0.1:9/external-auth/test/callback';

/** Rejects with an OAuthRefusedError of `code`. */
async function refused(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof OAuthRefusedError, `expected a refusal, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  });
}

/** Polls until `check` holds (a token expiring on the server's clock); fails after `seconds`. */
async function eventually(check: () => Promise<boolean>, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not true within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the external auth OAuth2 client against a real authorization server', () => {
  let server: TestOAuth2Server;
  let provider: ExternalAuthProvider;
  const client = new OAuthClient();

  /** Links through the code flow: authorization URL, login and consent, code exchange. */
  async function link(account = 'octocat'): Promise<Awaited<ReturnType<OAuthClient['exchangeCode']>>> {
    const state = randomBytes(16).toString('base64url');
    const codeVerifier = randomBytes(32).toString('base64url');
    const back = new URL(
      await server.completeLogin(client.authorizationUrl(provider, { redirectUri: REDIRECT, state, codeVerifier }).toString(), account),
    );
    assert.equal(back.searchParams.get('state'), state);
    return client.exchangeCode(provider, { code: back.searchParams.get('code') ?? '', redirectUri: REDIRECT, codeVerifier });
  }

  before(async () => {
    server = await startOAuth2Server({ accessTokenTtlSeconds: 2 });
    await server.allowRedirect(REDIRECT);
    const [configured] = readExternalAuthProviders({ env: server.env(0, { ID: 'test', DEVICE_FLOW: 'true', EXTRA_TOKEN_KEYS: 'scope' }) });
    assert.ok(configured);
    provider = configured;
  });
  after(() => server.close());

  it('links with PKCE and state, and refuses a code with the wrong verifier', async () => {
    const state = 'a-state-value';
    const codeVerifier = randomBytes(32).toString('base64url');
    const url = client.authorizationUrl(provider, { redirectUri: REDIRECT, state, codeVerifier });
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(url.searchParams.get('state'), state);
    assert.equal(url.searchParams.get('scope'), 'repo');

    const back = new URL(await server.completeLogin(url.toString()));
    assert.equal(back.searchParams.get('state'), state);
    const code = back.searchParams.get('code') ?? '';
    await refused(
      client.exchangeCode(provider, { code, redirectUri: REDIRECT, codeVerifier: randomBytes(32).toString('base64url') }),
      'invalid_grant',
    );

    const token = await link();
    assert.ok(await server.isLiveAccessToken(token.accessToken));
    assert.notEqual(token.refreshToken, '');
    assert.ok(token.expiry && token.expiry.getTime() > Date.now() && token.expiry.getTime() <= Date.now() + 3000);
    assert.deepEqual(token.extra, { scope: 'repo' });

    // The expiry is dated by the clock the client is given (the daemon's), not the machine's.
    const clock = new ManualClock(new Date('2030-01-01T00:00:00.000Z'));
    const clocked = new OAuthClient({ clock });
    const next = await clocked.refresh(provider, token.refreshToken);
    assert.equal(next.expiry?.toISOString(), '2030-01-01T00:00:02.000Z');
  });

  it('validates a live token with its user, and an expired or unknown one as invalid', async () => {
    const token = await link('hubot');
    const live = await client.validate(provider, token.accessToken);
    assert.equal(live.valid, true);
    assert.equal(live.user?.login, 'hubot');
    assert.equal(live.user?.profile_url, `${server.issuer}/hubot`);
    assert.deepEqual(await client.validate(provider, 'not-a-token'), { valid: false, user: null });
    await eventually(async () => !(await client.validate(provider, token.accessToken)).valid, 4);
    assert.equal(await server.isLiveAccessToken(token.accessToken), false);
  });

  it('refreshes with rotation: a new access token, and the old refresh token refused', async () => {
    const token = await link();
    const before = server.refreshGrants();
    const fresh = await client.refresh(provider, token.refreshToken);
    assert.equal(server.refreshGrants(), before + 1);
    assert.notEqual(fresh.accessToken, token.accessToken);
    assert.notEqual(fresh.refreshToken, token.refreshToken);
    assert.ok(await server.isLiveAccessToken(fresh.accessToken));
    await refused(client.refresh(provider, token.refreshToken), 'invalid_grant');
    await refused(client.refresh(provider, ''), 'invalid_grant');
  });

  it('revokes a link: its tokens stop working', async () => {
    const token = await link();
    await client.revoke(provider, token);
    assert.equal(await server.isLiveAccessToken(token.accessToken), false);
    await refused(client.refresh(provider, token.refreshToken), 'invalid_grant');

    // The server can also forget every token at once, as a provider that revokes an app's grants.
    const other = await link();
    server.revokeAll();
    assert.equal(await server.isLiveAccessToken(other.accessToken), false);
    await refused(client.refresh(provider, other.refreshToken), 'invalid_grant');
  });

  it('links through the device flow: pending until the user enters the code', async () => {
    const device = await client.startDevice(provider);
    assert.ok(device.device_code !== '' && device.user_code !== '');
    assert.ok(device.verification_uri.startsWith(server.issuer));
    assert.ok(device.expires_in > 0 && device.interval > 0);
    await refused(client.exchangeDevice(provider, device.device_code), 'authorization_pending');
    await server.completeDevice(device.user_code, 'devicer');
    const token = await client.exchangeDevice(provider, device.device_code);
    assert.equal((await client.validate(provider, token.accessToken)).user?.login, 'devicer');
  });

  it('tells an unreachable provider (a plain error) from a refusal', async () => {
    const [gone] = readExternalAuthProviders({
      env: server.env(0, { ID: 'gone', TOKEN_URL: 'http://127.0.0.1:9/token', VALIDATE_URL: 'http://127.0.0.1:9/user' }),
    });
    assert.ok(gone);
    await assert.rejects(
      client.refresh(gone, 'some-refresh-token'),
      (error: unknown) => !(error instanceof OAuthRefusedError) && error instanceof Error,
    );
    await assert.rejects(
      client.validate(gone, 'token'),
      (error: unknown) => !(error instanceof OAuthRefusedError) && error instanceof Error,
    );
  });
});

/** Reads a request's body as text. */
async function bodyOf(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}

describe("the OAuth2 client with GitHub's departures from the standard", () => {
  let server: Server;
  let base: string;
  const seen: { method: string; url: string; authorization: string; body: string }[] = [];
  const client = new OAuthClient();

  before(async () => {
    // GitHub's token endpoint answers form-encoded unless asked for JSON, and refusals with 200;
    // revocation deletes the app's grant and answers 204.
    server = createServer((request, response) => {
      void (async () => {
        const body = await bodyOf(request);
        seen.push({ method: request.method ?? '', url: request.url ?? '', authorization: request.headers.authorization ?? '', body });
        if (request.url === '/login/oauth/access_token') {
          const code = new URLSearchParams(body).get('code');
          const answer: Record<string, string> =
            code === 'good'
              ? { access_token: 'gho_token', token_type: 'bearer', scope: 'repo,workflow' }
              : { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' };
          if (request.headers.accept === 'application/json')
            response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
          else response.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' }).end(new URLSearchParams(answer).toString());
          return;
        }
        if (request.method === 'DELETE' && request.url === '/applications/client-id/grant') {
          response.writeHead(204).end();
          return;
        }
        response.writeHead(404).end();
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function github(): ExternalAuthProvider {
    const [provider] = readExternalAuthProviders({
      env: {
        COVE_EXTERNAL_AUTH_0_TYPE: 'github',
        COVE_EXTERNAL_AUTH_0_CLIENT_ID: 'client-id',
        COVE_EXTERNAL_AUTH_0_CLIENT_SECRET: 'client-secret',
        COVE_EXTERNAL_AUTH_0_TOKEN_URL: `${base}/login/oauth/access_token`,
        COVE_EXTERNAL_AUTH_0_REVOKE_URL: `${base}/applications/client-id/grant`,
      },
    });
    assert.ok(provider);
    return provider;
  }

  it('asks for JSON, reads a token without expiry, and takes a 200 with an error as a refusal', async () => {
    const token = await client.exchangeCode(github(), { code: 'good', redirectUri: 'http://127.0.0.1:9/cb', codeVerifier: 'v'.repeat(43) });
    assert.equal(token.accessToken, 'gho_token');
    assert.equal(token.refreshToken, '');
    assert.equal(token.expiry, null);
    await refused(
      client.exchangeCode(github(), { code: 'stale', redirectUri: 'http://127.0.0.1:9/cb', codeVerifier: 'v'.repeat(43) }),
      'bad_verification_code',
    );
  });

  it("revokes through GitHub's grant API with the client's credentials", async () => {
    seen.length = 0;
    await client.revoke(github(), { accessToken: 'gho_token', refreshToken: '', expiry: null, extra: {} });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.method, 'DELETE');
    assert.equal(seen[0]?.authorization, `Basic ${Buffer.from('client-id:client-secret').toString('base64')}`);
    assert.deepEqual(JSON.parse(seen[0]?.body ?? ''), { access_token: 'gho_token' });
  });
});

describe('the token exchanges of Azure DevOps and JFrog', () => {
  it('sends the code as an assertion to Azure DevOps, and the secret as a bearer token to JFrog', async () => {
    const server = createServer((request, response) => {
      void (async () => {
        const body = await bodyOf(request);
        exchanges.push({ url: request.url ?? '', authorization: request.headers.authorization ?? '', body: new URLSearchParams(body) });
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: 'at', token_type: 'jwt-bearer', expires_in: 3599 }));
      })();
    });
    const exchanges: { url: string; authorization: string; body: URLSearchParams }[] = [];
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const [azure, jfrog] = readExternalAuthProviders({
        env: {
          COVE_EXTERNAL_AUTH_0_TYPE: 'azure-devops',
          COVE_EXTERNAL_AUTH_0_CLIENT_ID: 'az-client',
          COVE_EXTERNAL_AUTH_0_CLIENT_SECRET: 'az-assertion',
          COVE_EXTERNAL_AUTH_0_TOKEN_URL: `${base}/azure/token`,
          COVE_EXTERNAL_AUTH_1_TYPE: 'jfrog',
          COVE_EXTERNAL_AUTH_1_CLIENT_ID: 'jf-client',
          COVE_EXTERNAL_AUTH_1_CLIENT_SECRET: 'jf-secret',
          COVE_EXTERNAL_AUTH_1_AUTH_URL: `${base}/ui/authorization`,
          COVE_EXTERNAL_AUTH_1_TOKEN_URL: `${base}/jfrog/token`,
        },
      });
      assert.ok(azure && jfrog);
      const client = new OAuthClient();
      assert.equal(
        client.authorizationUrl(azure, { redirectUri: 'http://x/cb', state: 's', codeVerifier: 'v' }).searchParams.get('response_type'),
        'Assertion',
      );
      const token = await client.exchangeCode(azure, { code: 'the-code', redirectUri: 'http://x/cb', codeVerifier: 'v' });
      assert.equal(token.accessToken, 'at');
      const sent = exchanges[0]?.body;
      assert.equal(sent?.get('grant_type'), 'urn:ietf:params:oauth:grant-type:jwt-bearer');
      assert.equal(sent?.get('client_assertion'), 'az-assertion');
      assert.equal(sent?.get('assertion'), 'the-code');
      assert.equal(sent?.get('client_secret'), null);
      await client.exchangeCode(jfrog, { code: 'jf-code', redirectUri: 'http://x/cb', codeVerifier: 'v' });
      assert.equal(exchanges[1]?.authorization, 'Bearer jf-secret');
      assert.equal(exchanges[1]?.body.get('code'), 'jf-code');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('a daemon configured with external auth providers', () => {
  it('shows them in the deployment config without their secrets, and refuses a bad one at start', async () => {
    const server = await startOAuth2Server();
    const test = await startTestDaemon({
      env: {
        ...server.env(0, { ID: 'forge' }),
        COVE_EXTERNAL_AUTH_1_TYPE: 'github',
        COVE_EXTERNAL_AUTH_1_CLIENT_ID: 'gh-client',
        COVE_EXTERNAL_AUTH_1_CLIENT_SECRET: 'gh-secret-value',
      },
    });
    try {
      const owner = await createOwner(test);
      const answer = await owner.deploymentConfig();
      const configs = answer.config['external_auth'] as ExternalAuthConfig[];
      assert.deepEqual(
        configs.map((config) => [config.id, config.type, config.client_id]),
        [
          ['forge', 'oauth2-test', server.clientId],
          ['github', 'github', 'gh-client'],
        ],
      );
      assert.equal(configs[1]?.regex, '^(https?://)?github\\.com(/.*)?$');
      assert.deepEqual(configs[1]?.scopes, ['repo', 'workflow']);
      assert.equal(configs[1]?.revoke_url, 'https://api.github.com/applications/gh-client/grant');
      assert.equal(configs[0]?.device_code_url, server.deviceCodeUrl);
      assert.ok(configs.every((config) => !('client_secret' in config)));
      const text = JSON.stringify(answer);
      assert.ok(!text.includes(server.clientSecret) && !text.includes('gh-secret-value'), 'a client secret was shown');
    } finally {
      await test.close();
      await server.close();
    }
    await assert.rejects(
      startTestDaemon({ env: { COVE_EXTERNAL_AUTH_0_TYPE: 'github', COVE_EXTERNAL_AUTH_0_REGEX: '(' } }),
      /COVE_EXTERNAL_AUTH_0_CLIENT_ID is required/,
    );
  });
});
