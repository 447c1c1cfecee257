import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Browser } from '../helpers/browser.js';
import { GithubStandIn } from '../helpers/github-stand-in.js';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const OIDC_CALLBACK = '/api/v2/users/oidc/callback';
const GITHUB_CALLBACK = '/api/v2/users/oauth2/github/callback';

/** Every user row, deleted or not, straight from the database: a refused sign-in must write none. */
async function userRows(test: TestDaemon): Promise<{ email: string; username: string; name: string }[]> {
  return test.daemon.store.db.selectFrom('users').select(['email', 'username', 'name']).execute();
}

describe('control characters in what an identity provider says are refused, not stored', () => {
  describe('OpenID Connect', () => {
    let provider: TestOidcProvider;
    let test: TestDaemon;
    before(async () => {
      provider = await startOidcProvider();
      test = await startTestDaemon({
        flags: { oidcIssuerUrl: provider.issuer, oidcClientId: provider.clientId, oidcClientSecret: provider.clientSecret },
      });
      await provider.allowRedirect(`${test.url}${OIDC_CALLBACK}`);
      await createOwner(test);
      provider.accounts.set('nul-email', { email: 'eve\u0000@example.com', preferredUsername: 'eve' });
      provider.accounts.set('nul-name', { email: 'nina@example.com', preferredUsername: 'nina', name: 'Nina\u0000 Admin' });
      provider.accounts.set('bell-username', { email: 'bella@example.com', preferredUsername: 'bella\u0007' });
      provider.accounts.set('newline-email', { email: 'nora@example.com\nBcc: all@example.com' });
      provider.accounts.set('plain', { email: 'paula@example.com', preferredUsername: 'paula', name: 'Paula Plain' });
    });
    after(async () => {
      await test.close();
      await provider.close();
    });

    async function signIn(accountId: string, accept?: string) {
      const browser = new Browser();
      const start = await browser.request(`${test.url}${OIDC_CALLBACK}`);
      assert.equal(start.status, 307, start.body);
      const back = await signInAtProvider(browser, start.location ?? '', accountId);
      return browser.request(back.location ?? '', accept ? { headers: { accept } } : {});
    }

    it('refuses an email with a NUL byte with a page that says why, and writes no user', async () => {
      const before = await userRows(test);
      const final = await signIn('nul-email');
      assert.equal(final.status, 400, final.body);
      assert.match(final.headers.get('content-type') ?? '', /text\/html/);
      assert.match(final.body, /email address holds a control character \(such as a NUL byte\)/);
      assert.equal(final.body.includes('\u0000'), false);
      assert.equal(final.headers.get('set-cookie')?.includes('service_session_token=') ?? false, false);
      assert.deepEqual(await userRows(test), before);
    });

    it('refuses a NUL byte in the name, a bell in the username and a line break in the email, in the error shape for API clients', async () => {
      const before = await userRows(test);
      for (const [accountId, label] of [
        ['nul-name', 'name'],
        ['bell-username', 'username'],
        ['newline-email', 'email address'],
      ] as const) {
        const final = await signIn(accountId, 'application/json');
        assert.equal(final.status, 400, `${accountId}: ${final.body}`);
        const body = JSON.parse(final.body) as { message: string; detail: string };
        assert.equal(
          body.message,
          `Your OpenID Connect account's ${label} holds a control character (such as a NUL byte), so you cannot sign in with it.`,
        );
        assert.match(body.detail, /Correct it at OpenID Connect/);
      }
      assert.deepEqual(await userRows(test), before);
      // The same provider's clean accounts still sign in.
      assert.equal((await signIn('plain')).status, 307);
      assert.ok((await userRows(test)).some((row) => row.email === 'paula@example.com' && row.name === 'Paula Plain'));
    });
  });

  describe('GitHub', () => {
    let github: GithubStandIn;
    let test: TestDaemon;
    before(async () => {
      github = await GithubStandIn.start();
      test = await startTestDaemon({
        flags: {
          githubClientId: github.clientId,
          githubClientSecret: github.clientSecret,
          githubEnterpriseBaseUrl: github.baseUrl,
          githubAllowEveryone: 'true',
          githubAllowSignups: 'true',
        },
      });
      await createOwner(test);
      github.add({
        id: 201,
        login: 'ghost',
        name: 'Ghost\u0000Writer',
        emails: [{ email: 'ghost@acme.test', primary: true, verified: true }],
      });
      github.add({ id: 202, login: 'spook', emails: [{ email: 'spook\u0000@acme.test', primary: true, verified: true }] });
      github.add({ id: 203, login: 'casper', name: 'Casper', emails: [{ email: 'casper@acme.test', primary: true, verified: true }] });
    });
    after(async () => {
      await test.close();
      await github.close();
    });

    async function signIn(login: string) {
      const browser = new Browser();
      github.signedInAs = login;
      const start = await browser.request(`${test.url}${GITHUB_CALLBACK}`);
      const back = await browser.request(start.location ?? '');
      return browser.request(back.location ?? '');
    }

    it('refuses a NUL byte in the name or the email, writes no user, and still signs clean accounts in', async () => {
      const before = await userRows(test);
      const ghost = await signIn('ghost');
      assert.equal(ghost.status, 400, ghost.body);
      assert.match(ghost.body, /GitHub account&#39;s name holds a control character/);
      const spook = await signIn('spook');
      assert.equal(spook.status, 400, spook.body);
      assert.match(spook.body, /GitHub account&#39;s email address holds a control character/);
      assert.deepEqual(await userRows(test), before);
      assert.equal((await signIn('casper')).status, 307);
      assert.ok((await userRows(test)).some((row) => row.username === 'casper'));
    });
  });
});
