import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RawValues } from '../../src/domain/deployment-options.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { Browser, type Page } from '../helpers/browser.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { startConversion } from '../helpers/login-conversion.js';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

const CALLBACK = '/api/v2/users/oidc/callback';

/** A daemon configured for the provider, with an owner, and the provider knowing the daemon's callback. */
async function start(provider: TestOidcProvider, flags: RawValues = {}): Promise<{ test: TestDaemon; owner: CoveClient }> {
  const test = await startTestDaemon({
    flags: { oidcIssuerUrl: provider.issuer, oidcClientId: provider.clientId, oidcClientSecret: provider.clientSecret, ...flags },
  });
  await provider.allowRedirect(`${test.url}${CALLBACK}`);
  return { test, owner: await createOwner(test) };
}

/** Starts a sign-in at the daemon, signs in at the provider, and brings the browser back; returns each step. */
async function signIn(
  browser: Browser,
  test: TestDaemon,
  accountId: string,
  options: { readonly query?: string; readonly tamper?: (authorizationUrl: URL) => void } = {},
): Promise<{ start: Page; back: Page; final: Page }> {
  const start = await browser.request(`${test.url}${CALLBACK}${options.query ?? ''}`);
  assert.equal(start.status, 307, start.body);
  const authorizationUrl = new URL(start.location ?? '');
  options.tamper?.(authorizationUrl);
  const back = await signInAtProvider(browser, authorizationUrl.toString(), accountId);
  assert.ok(back.location?.startsWith(`${test.url}${CALLBACK}?`), back.location);
  const final = await browser.request(back.location ?? '');
  return { start, back, final };
}

function sessionOf(browser: Browser, test: TestDaemon): CoveClient {
  const token = browser.cookie(test.url, 'service_session_token');
  assert.ok(token, 'the browser has no session cookie');
  return test.anonymous.withToken(token);
}

async function userCount(owner: CoveClient): Promise<number> {
  return (await owner.users()).count;
}

describe('OIDC sign-in', () => {
  let provider: TestOidcProvider;
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    provider = await startOidcProvider();
    ({ test, owner } = await start(provider, { oidcEmailDomain: 'example.com,corp.example' }));
    provider.accounts.set('alice-sub', { email: 'alice@example.com', preferredUsername: 'alice', name: 'Alice Liddell' });
    provider.accounts.set('mallory-sub', { email: 'mallory@elsewhere.test', preferredUsername: 'mallory' });
    provider.accounts.set('unverified-sub', { email: 'una@example.com', emailVerified: false });
    provider.accounts.set('owner-twin', { email: 'owner@example.com', preferredUsername: 'owner' });
  });
  after(async () => {
    await test.close();
    await provider.close();
  });

  it('creates the user on first sign-in and signs the same user in the second time', async () => {
    const before = await userCount(owner);
    const browser = new Browser();
    const first = await signIn(browser, test, 'alice-sub', { query: '?redirect=%2Fcli-auth%3Fx%3D1' });
    assert.equal(first.final.status, 307, first.final.body);
    assert.equal(first.final.location, `${test.url}/cli-auth?x=1`);
    const alice = await sessionOf(browser, test).user('me');
    assert.equal(alice.login_type, 'oidc');
    assert.equal(alice.username, 'alice');
    assert.equal(alice.name, 'Alice Liddell');
    assert.equal(alice.email, 'alice@example.com');
    assert.equal(alice.status, 'active');
    assert.equal(await userCount(owner), before + 1);

    const again = new Browser();
    const second = await signIn(again, test, 'alice-sub');
    assert.equal(second.final.status, 307, second.final.body);
    assert.equal(second.final.location, `${test.url}/`);
    assert.equal((await sessionOf(again, test).user('me')).id, alice.id);
    assert.equal(await userCount(owner), before + 1);
  });

  it('refuses an email outside the allowed domains, and creates no user', async () => {
    const before = await userCount(owner);
    const { final } = await signIn(new Browser(), test, 'mallory-sub');
    assert.equal(final.status, 403);
    assert.match(final.headers.get('content-type') ?? '', /text\/html/);
    assert.match(final.body, /Your email &quot;mallory@elsewhere.test&quot; is not in domains/);
    assert.equal(await userCount(owner), before);
  });

  it('refuses an unverified email, and answers an API client in the error shape', async () => {
    const browser = new Browser();
    const start = await browser.request(`${test.url}${CALLBACK}`);
    const back = await signInAtProvider(browser, start.location ?? '', 'unverified-sub');
    const final = await browser.request(back.location ?? '', { headers: { accept: 'application/json' } });
    assert.equal(final.status, 403);
    assert.deepEqual(JSON.parse(final.body), {
      message: 'Verify the "una@example.com" email address on your OIDC provider to authenticate!',
    });
  });

  it('refuses a password user with the same email until they convert', async () => {
    const { final } = await signIn(new Browser(), test, 'owner-twin');
    assert.equal(final.status, 403);
    assert.match(final.body, /Incorrect login type, attempting to use &quot;oidc&quot; but user is of login type &quot;password&quot;/);
    assert.match(final.body, /convert-login/);
  });

  it('refuses a replayed state', async () => {
    const browser = new Browser();
    const { back, final } = await signIn(browser, test, 'alice-sub');
    assert.equal(final.status, 307);
    // The same callback again, with the state cookie put back as an attacker holding both would.
    browser.setCookie(test.url, 'cove_sign_in_state', new URL(back.location ?? '').searchParams.get('state') ?? '', '/api/v2/users/');
    const replay = await browser.request(back.location ?? '', { headers: { accept: 'application/json' } });
    assert.equal(replay.status, 400);
    assert.match(replay.body, /unknown or was used already/);
  });

  it('refuses a forged state, and a state that is not the one this browser was given', async () => {
    const browser = new Browser();
    const start = await browser.request(`${test.url}${CALLBACK}`);
    const back = await signInAtProvider(browser, start.location ?? '', 'alice-sub');
    const forged = new URL(back.location ?? '');
    forged.searchParams.set('state', 'forged-state-0123456789');
    const mismatch = await browser.request(forged.toString(), { headers: { accept: 'application/json' } });
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.body, /does not match this browser/);
    browser.setCookie(test.url, 'cove_sign_in_state', 'forged-state-0123456789', '/api/v2/users/');
    const unknown = await browser.request(forged.toString(), { headers: { accept: 'application/json' } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body, /unknown or was used already/);
  });

  it('refuses an ID token with a nonce other than the one sent', async () => {
    const before = await userCount(owner);
    const { final } = await signIn(new Browser(), test, 'alice-sub', {
      tamper: (url) => url.searchParams.set('nonce', 'a-nonce-the-daemon-never-sent'),
    });
    assert.equal(final.status, 401);
    assert.match(final.body, /could not be verified/);
    assert.match(final.body, /nonce/);
    assert.equal(await userCount(owner), before);
  });

  it('refuses an expired ID token', async () => {
    // The daemon's clock runs two hours past the provider's: the one-hour ID token has expired.
    const saved = test.clock.now();
    test.clock.set(new Date(Date.now() + 2 * 3600_000));
    try {
      const { final } = await signIn(new Browser(), test, 'alice-sub');
      assert.equal(final.status, 401);
      assert.match(final.body, /exp/);
    } finally {
      test.clock.set(saved);
    }
  });

  it('converts a password user to OIDC sign-in, once', async () => {
    provider.accounts.set('carol-sub', { email: 'carol@example.com', preferredUsername: 'carol-at-idp' });
    const carol = await createMember(test, 'carol');
    const browser = new Browser();
    // convert-login sets its cookie in the browser that then goes through the provider.
    const conversion = await startConversion(browser, test, carol.token ?? '', 'oidc');
    const { final } = await signIn(browser, test, 'carol-sub', { query: `?oidc_merge_state=${conversion.state_string}` });
    assert.equal(final.status, 307, final.body);
    const converted = await sessionOf(browser, test).user('me');
    assert.equal(converted.username, 'carol');
    assert.equal(converted.login_type, 'oidc');
    await expectApiError(test.anonymous.login('carol@example.com', STRONG_PASSWORD), 401);

    // The same conversion again: its state was spent.
    const replay = await browser.request(`${test.url}${CALLBACK}?oidc_merge_state=${conversion.state_string}`, {
      headers: { accept: 'application/json' },
    });
    assert.equal(replay.status, 400);
  });
});

describe('OIDC sign-in with other settings', () => {
  it('refuses a new user when sign-ups are off, and creates none', async () => {
    const provider = await startOidcProvider();
    const { test, owner } = await start(provider, { oidcAllowSignups: 'false' });
    try {
      provider.accounts.set('dave-sub', { email: 'dave@example.com' });
      const { final } = await signIn(new Browser(), test, 'dave-sub');
      assert.equal(final.status, 403);
      assert.match(final.body, /Signups are not allowed for login type &quot;oidc&quot;/);
      assert.equal(await userCount(owner), 1);
      // An account an administrator made for OIDC signs in and is linked.
      const made = await owner.createUser({
        email: 'dave@example.com',
        username: 'dave',
        login_type: 'oidc',
        organization_ids: [test.daemon.identity.defaultOrganization.id],
      });
      const browser = new Browser();
      const { final: allowed } = await signIn(browser, test, 'dave-sub');
      assert.equal(allowed.status, 307, allowed.body);
      assert.equal((await sessionOf(browser, test).user('me')).id, made.id);
    } finally {
      await test.close();
      await provider.close();
    }
  });

  it('refuses an ID token signed with a key the provider does not publish', async () => {
    const provider = await startOidcProvider({ foreignSigningKeys: true });
    const { test, owner } = await start(provider);
    try {
      provider.accounts.set('erin-sub', { email: 'erin@example.com' });
      const { final } = await signIn(new Browser(), test, 'erin-sub');
      assert.equal(final.status, 401, final.body);
      assert.match(final.body, /could not be verified/);
      assert.equal(await userCount(owner), 1);
    } finally {
      await test.close();
      await provider.close();
    }
  });

  it('reads the username, name and email from the configured claims, and says which methods are on', async () => {
    const provider = await startOidcProvider();
    const { test } = await start(provider, {
      oidcUsernameField: 'email',
      oidcNameField: 'preferred_username',
      oidcSignInText: 'Corporate SSO',
      oidcIconUrl: 'https://idp.example.com/icon.svg',
      disablePasswordAuth: 'true',
    });
    try {
      assert.deepEqual(await test.anonymous.authMethods(), {
        password: { enabled: false },
        github: { enabled: false, default_provider_configured: false },
        oidc: { enabled: true, signInText: 'Corporate SSO', iconUrl: 'https://idp.example.com/icon.svg' },
      });
      provider.accounts.set('frank-sub', { email: 'frank.jones@example.com', preferredUsername: 'Frank J' });
      const browser = new Browser();
      const { final } = await signIn(browser, test, 'frank-sub');
      assert.equal(final.status, 307, final.body);
      const frank = await sessionOf(browser, test).user('me');
      assert.equal(frank.username, 'frank-jones-example-com');
      assert.equal(frank.name, 'Frank J');
    } finally {
      await test.close();
      await provider.close();
    }
  });
});
