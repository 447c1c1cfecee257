import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { Browser } from '../helpers/browser.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { CliUser } from '../helpers/run-cli.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** A deployment where password sign-in is off and users sign in through OIDC, then paste a token into the CLI. */
describe('signing in to the CLI through a browser', () => {
  let provider: TestOidcProvider;
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    provider = await startOidcProvider();
    test = await startTestDaemon({
      flags: {
        oidcIssuerUrl: provider.issuer,
        oidcClientId: provider.clientId,
        oidcClientSecret: provider.clientSecret,
        oidcSignInText: 'Acme SSO',
        disablePasswordAuth: 'true',
      },
    });
    await provider.allowRedirect(`${test.url}/api/v2/users/oidc/callback`);
    owner = await createOwner(test);
    provider.accounts.set('pat-sub', { email: 'pat@example.com', preferredUsername: 'pat' });
  });
  after(async () => {
    await test.close();
    await provider.close();
  });

  it('keeps password sign-in for owners only', async () => {
    assert.equal((await owner.user('me')).username, 'owner');
    const member = await expectApiError(createMember(test, 'member'), 403, /Password authentication is disabled/);
    assert.match(member.body.detail ?? '', /Only owners/);
    assert.equal((await test.anonymous.authMethods()).password.enabled, false);
  });

  it('sends "cove login" to the /cli-auth page when password sign-in is off', async () => {
    const result = await new CliUser().run('login', test.url);
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`${test.url}/cli-auth`));
    assert.match(result.stderr, /sign in with Acme SSO/);
    assert.match(result.stderr, /--token/);
  });

  it('offers the provider to a signed-out browser, and hands a signed-in one a token for the CLI', async () => {
    const browser = new Browser();
    const signedOut = await browser.request(`${test.url}/cli-auth`);
    assert.equal(signedOut.status, 200);
    const link = /href="([^"]*oidc\/callback[^"]*)"/.exec(signedOut.body)?.[1]?.replace(/&amp;/g, '&');
    assert.equal(link, '/api/v2/users/oidc/callback?redirect=%2Fcli-auth');
    assert.match(signedOut.body, /Sign in with Acme SSO/);

    const start = await browser.request(`${test.url}${link}`);
    const back = await signInAtProvider(browser, start.location ?? '', 'pat-sub');
    const landed = await browser.request(back.location ?? '');
    assert.equal(landed.location, `${test.url}/cli-auth`);
    const signedIn = await browser.request(landed.location);
    assert.match(signedIn.body, /signed in as <strong>pat<\/strong>/);

    const elsewhere = await browser.request(`${test.url}/cli-auth`, { method: 'POST', headers: { origin: 'https://evil.example' } });
    assert.equal(elsewhere.status, 403);
    const created = await browser.request(`${test.url}/cli-auth`, { method: 'POST', headers: { origin: test.url } });
    assert.equal(created.status, 200);
    const token = /<pre id="token">([^<]+)<\/pre>/.exec(created.body)?.[1];
    assert.match(token ?? '', /^[0-9A-Za-z]{10}-[0-9A-Za-z]{22}$/);

    const cli = new CliUser();
    const login = await cli.run('login', '--token', token ?? '', test.url);
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /Welcome to Cove, pat!/);
    const whoami = await cli.run('whoami', '-o', 'json');
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.match(whoami.stdout, /"pat"/);
  });

  it('refuses a token request from a browser that is not signed in', async () => {
    const refused = await new Browser().request(`${test.url}/cli-auth`, { method: 'POST' });
    assert.equal(refused.status, 401);
    assert.doesNotMatch(refused.body, /<pre id="token">/);
  });
});
