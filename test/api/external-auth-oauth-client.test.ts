import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { OAuthRefusedError, type ExternalAuthProvider } from '../../src/domain/external-auth/external-auth-provider.js';
import { OAuthClient } from '../../src/domain/external-auth/oauth-client.js';
import { readExternalAuthProviders } from '../../src/domain/options/external-auth.js';
import { startOAuth2Server, type TestOAuth2Server } from '../helpers/oauth2-server.js';

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
