import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RawValues } from '../../src/domain/deployment-options.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { Browser, type Page } from '../helpers/browser.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { GithubStandIn } from '../helpers/github-stand-in.js';
import { startConversion } from '../helpers/login-conversion.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

const CALLBACK = '/api/v2/users/oauth2/github/callback';

async function start(github: GithubStandIn, flags: RawValues): Promise<{ test: TestDaemon; owner: CoveClient }> {
  const test = await startTestDaemon({
    flags: {
      githubClientId: github.clientId,
      githubClientSecret: github.clientSecret,
      githubEnterpriseBaseUrl: github.baseUrl,
      ...flags,
    },
  });
  return { test, owner: await createOwner(test) };
}

/** Starts a GitHub sign-in as `login`, lets GitHub send the browser back, and returns the last answer. */
async function signIn(
  browser: Browser,
  test: TestDaemon,
  github: GithubStandIn,
  login: string,
  query = '',
): Promise<{ start: Page; final: Page }> {
  github.signedInAs = login;
  const start = await browser.request(`${test.url}${CALLBACK}${query}`);
  assert.equal(start.status, 307, start.body);
  assert.ok(start.location?.startsWith(`${github.baseUrl}/login/oauth/authorize?`), start.location);
  const back = await browser.request(start.location ?? '');
  assert.equal(back.status, 302);
  assert.ok(back.location?.startsWith(`${test.url}${CALLBACK}?`), back.location);
  return { start, final: await browser.request(back.location ?? '') };
}

function sessionOf(browser: Browser, test: TestDaemon): CoveClient {
  const token = browser.cookie(test.url, 'service_session_token');
  assert.ok(token, 'the browser has no session cookie');
  return test.anonymous.withToken(token);
}

describe('GitHub sign-in', () => {
  let github: GithubStandIn;
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    github = await GithubStandIn.start();
    ({ test, owner } = await start(github, {
      githubAllowedOrgs: 'acme,Globex',
      githubAllowedTeams: 'acme/devs,globex/ops',
      githubAllowSignups: 'true',
    }));
    github.add({
      id: 101,
      login: 'octo-dev',
      name: 'Octo Dev',
      emails: [{ email: 'octo@acme.test', primary: true, verified: true }],
      orgs: ['acme'],
      teams: ['acme/devs'],
    });
    github.add({ id: 102, login: 'outsider', emails: [{ email: 'out@nowhere.test', primary: true, verified: true }], orgs: ['initech'] });
    github.add({
      id: 103,
      login: 'sales-person',
      emails: [{ email: 'sales@acme.test', primary: true, verified: true }],
      orgs: ['acme'],
      teams: ['acme/sales'],
    });
    github.add({
      id: 104,
      login: 'unverified',
      emails: [{ email: 'unv@acme.test', primary: true, verified: false }],
      orgs: ['acme'],
      teams: ['acme/devs'],
    });
  });
  after(async () => {
    await test.close();
    await github.close();
  });

  it('creates the user on first sign-in and signs the same user in the second time', async () => {
    const before = (await owner.users()).count;
    const browser = new Browser();
    const { final } = await signIn(browser, test, github, 'octo-dev', '?redirect=%2Fworkspaces');
    assert.equal(final.status, 307, final.body);
    assert.equal(final.location, `${test.url}/workspaces`);
    const octo = await sessionOf(browser, test).user('me');
    assert.equal(octo.login_type, 'github');
    assert.equal(octo.username, 'octo-dev');
    assert.equal(octo.email, 'octo@acme.test');
    assert.equal(octo.name, 'Octo Dev');
    assert.equal((await owner.users()).count, before + 1);
    // The API base of an Enterprise server is its /api/v3.
    assert.ok(github.apiCalls.includes('/api/v3/orgs/acme/teams/devs/memberships/octo-dev'), github.apiCalls.join('\n'));

    const again = new Browser();
    const { final: second } = await signIn(again, test, github, 'octo-dev');
    assert.equal(second.status, 307, second.body);
    assert.equal((await sessionOf(again, test).user('me')).id, octo.id);
    assert.equal((await owner.users()).count, before + 1);
  });

  it('refuses a user of no allowed organization, and creates no user', async () => {
    const before = (await owner.users()).count;
    const { final } = await signIn(new Browser(), test, github, 'outsider');
    assert.equal(final.status, 401);
    assert.match(final.body, /You aren&#39;t a member of the authorized Github organizations!/);
    assert.equal((await owner.users()).count, before);
  });

  it('refuses a member of an allowed organization who is in no allowed team', async () => {
    const before = (await owner.users()).count;
    const browser = new Browser();
    github.signedInAs = 'sales-person';
    const start = await browser.request(`${test.url}${CALLBACK}`);
    const back = await browser.request(start.location ?? '');
    const final = await browser.request(back.location ?? '', { headers: { accept: 'application/json' } });
    assert.equal(final.status, 401);
    assert.equal(JSON.parse(final.body).message, "You aren't a member of an authorized team in the acme Github organization(s)!");
    assert.equal((await owner.users()).count, before);
  });

  it('refuses an unverified primary email', async () => {
    const { final } = await signIn(new Browser(), test, github, 'unverified');
    assert.equal(final.status, 403);
    assert.match(final.body, /Your primary email must be verified on GitHub!/);
  });

  it('refuses a forged state and a replayed one', async () => {
    const browser = new Browser();
    github.signedInAs = 'octo-dev';
    const start = await browser.request(`${test.url}${CALLBACK}`);
    const back = await browser.request(start.location ?? '');
    const forged = new URL(back.location ?? '');
    forged.searchParams.set('state', 'forged');
    const refused = await browser.request(forged.toString(), { headers: { accept: 'application/json' } });
    assert.equal(refused.status, 400);
    assert.match(refused.body, /does not match this browser/);
    // The refusal cleared the state cookie; the real callback afterwards is refused too.
    const late = await browser.request(back.location ?? '', { headers: { accept: 'application/json' } });
    assert.equal(late.status, 400);
  });

  it('converts a password user to GitHub sign-in, once', async () => {
    github.add({
      id: 105,
      login: 'gina-gh',
      emails: [{ email: 'gina@example.com', primary: true, verified: true }],
      orgs: ['globex'],
      teams: ['globex/ops'],
    });
    const gina = await createMember(test, 'gina');
    const browser = new Browser();
    const conversion = await startConversion(browser, test, gina.token ?? '', 'github');
    const { final } = await signIn(browser, test, github, 'gina-gh', `?oidc_merge_state=${conversion.state_string}`);
    assert.equal(final.status, 307, final.body);
    const converted = await sessionOf(browser, test).user('me');
    assert.equal(converted.username, 'gina');
    assert.equal(converted.login_type, 'github');
    await expectApiError(test.anonymous.login('gina@example.com', STRONG_PASSWORD), 401);
    // Converting again needs the password the account no longer has.
    await expectApiError(sessionOf(browser, test).convertLogin('me', { to_type: 'github', password: STRONG_PASSWORD }), 400);
    const replay = await browser.request(`${test.url}${CALLBACK}?oidc_merge_state=${conversion.state_string}`, {
      headers: { accept: 'application/json' },
    });
    assert.equal(replay.status, 400);
  });

  it('refuses a conversion whose GitHub account is someone else', async () => {
    const hank = await createMember(test, 'hank');
    const browser = new Browser();
    const conversion = await startConversion(browser, test, hank.token ?? '', 'github');
    const { final } = await signIn(browser, test, github, 'octo-dev', `?oidc_merge_state=${conversion.state_string}`);
    assert.equal(final.status, 403);
    assert.match(final.body, /not the account being converted/);
    assert.equal((await hank.user('me')).login_type, 'password');
  });
});

describe('GitHub sign-in with other settings', () => {
  it('refuses a new user when sign-ups are off, and lets everyone in when told to', async () => {
    const github = await GithubStandIn.start();
    github.add({ id: 201, login: 'ivy', emails: [{ email: 'ivy@example.com', primary: true, verified: true }] });
    const closed = await start(github, { githubAllowEveryone: 'true' });
    try {
      const { final } = await signIn(new Browser(), closed.test, github, 'ivy');
      assert.equal(final.status, 403);
      assert.match(final.body, /Signups are not allowed for login type &quot;github&quot;/);
      assert.equal((await closed.owner.users()).count, 1);
      assert.deepEqual((await closed.test.anonymous.authMethods()).github, { enabled: true, default_provider_configured: false });
    } finally {
      await closed.test.close();
    }
    const open = await start(github, { githubAllowEveryone: 'true', githubAllowSignups: 'true' });
    try {
      const browser = new Browser();
      const { final } = await signIn(browser, open.test, github, 'ivy');
      assert.equal(final.status, 307, final.body);
      assert.equal((await sessionOf(browser, open.test).user('me')).login_type, 'github');
    } finally {
      await open.test.close();
      await github.close();
    }
  });

  it('refuses settings that cannot work together at start', async () => {
    await assert.rejects(startTestDaemon({ flags: { githubClientId: 'id', githubClientSecret: 'secret' } }), /allowed-orgs/);
    await assert.rejects(
      startTestDaemon({
        flags: { githubClientId: 'id', githubClientSecret: 'secret', githubAllowEveryone: 'true', githubAllowedOrgs: 'acme' },
      }),
      /cannot be used together/,
    );
    await assert.rejects(
      startTestDaemon({
        flags: { githubClientId: 'id', githubClientSecret: 'secret', githubAllowedOrgs: 'acme', githubAllowedTeams: 'devs' },
      }),
      /organization\/team-slug/,
    );
  });
});
