import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { ListUserExternalAuthResponse } from '../../src/sdk/wire/index.js';
import { referenceMismatches } from '../helpers/reference-shapes.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError, rawRequest } from '../helpers/expect-api-error.js';
import { startOAuth2Server, type TestOAuth2Server } from '../helpers/oauth2-server.js';
import { specTypeFields } from '../helpers/spec-types.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Fields of the contract's wire types the reference client of the fixture does not list yet (its server sends them). */
const NEWER_FIELDS = new Set(['supports_revocation', 'code_challenge_methods_supported']);

const ALICE_AGENT = 'agent-token-of-alices-external-auth-workspace';
const CAROL_AGENT = 'agent-token-of-carols-external-auth-workspace';

/** An echo template with one agent of `token`, requiring the providers `externalAuth` names. */
function echoTemplate(token: string | undefined, externalAuth: unknown[] = []): unknown {
  const agents = token === undefined ? [] : [{ name: 'main', auth_token: token }];
  return { parse: { external_auth: externalAuth }, apply: { resources: [{ name: 'box', type: 'echo', agents }] } };
}

/**
 * Every way `value` differs from the spec's type: a field of another JSON kind, or (with
 * `allPresent`) a field left out. The agent's answer carries either the token fields or `url`.
 */
function specMismatches(value: Record<string, unknown>, type: string, allPresent: boolean): string[] {
  return specTypeFields(type).flatMap((field) => {
    if (!(field.name in value)) return allPresent ? [`${type}.${field.name}: missing`] : [];
    const got = value[field.name];
    const kind = Array.isArray(got) ? 'array' : typeof got;
    return field.kind === 'any' || kind === field.kind ? [] : [`${type}.${field.name}: ${kind}, not ${field.kind}`];
  });
}

for (const dialect of TEST_DIALECTS) {
  describe(`external auth links, routes and fresh tokens (${dialect})`, () => {
    let oauth: TestOAuth2Server;
    let test: TestDaemon;
    let owner: CoveClient;
    let alice: CoveClient;
    let bob: CoveClient;
    let carol: CoveClient;
    let dave: CoveClient;
    let requiringTemplateId: string;
    let requiringVersionId: string;

    const as = (client: CoveClient) => ({ 'Service-Session-Token': client.token ?? '' });
    const asAgent = (token: string, query: string) =>
      rawRequest(test.url, 'GET', `/workspaceagents/me/external-auth?${query}`, { headers: { 'Service-Session-Token': token } });
    /** GET of a dashboard-visited route, its redirect not followed. */
    const visit = async (client: CoveClient, path: string) => {
      const response = await fetch(path.startsWith('http') ? path : `${test.url}${path}`, { headers: as(client), redirect: 'manual' });
      const text = await response.text();
      return {
        status: response.status,
        location: response.headers.get('location') ?? '',
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      };
    };
    /** Starts a link as `client` and returns the provider's redirect back (code and state), not yet visited. */
    const startAndLogin = async (client: CoveClient, account: string, providerId = 'git', redirect?: string) => {
      const query = redirect === undefined ? '' : `?redirect=${encodeURIComponent(redirect)}`;
      const started = await visit(client, `/external-auth/${providerId}/callback${query}`);
      assert.equal(started.status, 307, JSON.stringify(started.body));
      assert.ok(started.location.startsWith(oauth.authUrl), started.location);
      return { authorize: new URL(started.location), back: await oauth.completeLogin(started.location, account) };
    };
    const link = async (client: CoveClient, account: string, providerId = 'git') => {
      const { back } = await startAndLogin(client, account, providerId);
      const done = await visit(client, back);
      assert.equal(done.status, 307, JSON.stringify(done.body));
      return done;
    };
    /** Moves the expiry of `client`'s token to `msLeft` from now (negative: expired), as time passing would. */
    const expireToken = async (client: CoveClient, msLeft: number) => {
      const userId = (await client.user('me')).id;
      await test.daemon.store.db
        .updateTable('external_auth_links')
        .set({ oauth_expiry: new Date(test.clock.now().getTime() + msLeft).toISOString() })
        .where('provider_id', '=', 'git')
        .where('user_id', '=', userId)
        .execute();
    };
    const linkOf = async (client: CoveClient, providerId = 'git') =>
      (await client.externalAuthLinks()).links.find((candidate) => candidate.provider_id === providerId);

    before(async () => {
      oauth = await startOAuth2Server();
      test = await startTestDaemon({
        database: dialect,
        flags: { provisionerDaemons: '1' },
        env: {
          ...oauth.env(0, { ID: 'git', DISPLAY_NAME: 'Test Git', DISPLAY_ICON: '/icon/git.svg', DEVICE_FLOW: 'true' }),
          ...oauth.env(1, { ID: 'other-git', DISPLAY_NAME: 'Other Git', REGEX: '^https://other\\.example/', DEVICE_FLOW: 'false' }),
          // A provider that does not answer: nothing listens on port 9 of the loopback interface.
          ...oauth.env(2, {
            ID: 'down-git',
            REGEX: '^https://down\\.example/',
            TOKEN_URL: 'http://127.0.0.1:9/token',
            VALIDATE_URL: 'http://127.0.0.1:9/user',
          }),
        },
      });
      // The provider stamps its tokens' expiry by the real time: the daemon's clock starts there.
      test.clock.set(new Date());
      await oauth.allowRedirect(`${test.url}/external-auth/git/callback`);
      await oauth.allowRedirect(`${test.url}/external-auth/other-git/callback`);
      owner = await createOwner(test);
      alice = await createMember(test, 'alice');
      bob = await createMember(test, 'bob');
      carol = await createMember(test, 'carol');
      dave = await createMember(test, 'dave');
      const plain = await createEchoTemplate(owner, 'alice-box', echoTemplate(ALICE_AGENT));
      const carolBox = await createEchoTemplate(owner, 'carol-box', echoTemplate(CAROL_AGENT));
      for (const [client, templateId] of [
        [alice, plain.template.id],
        [carol, carolBox.template.id],
      ] as const) {
        const workspace = await client.createWorkspace('me', { name: 'dev', template_id: templateId });
        await client.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
      }
      const requiring = await createEchoTemplate(owner, 'needs-git', echoTemplate(undefined, ['git', { id: 'other-git', optional: true }]));
      requiringTemplateId = requiring.template.id;
      requiringVersionId = requiring.version.id;
    });
    after(async () => {
      await test?.close();
      await oauth?.close();
    });

    it('lists the configured providers, none linked yet, and answers 404 for an unknown provider', async () => {
      const listed = await alice.externalAuthLinks();
      assert.deepEqual(
        listed.providers.map((provider) => [provider.id, provider.type, provider.display_name, provider.device, provider.allow_validate]),
        [
          ['git', 'oauth2-test', 'Test Git', true, true],
          ['other-git', 'oauth2-test', 'Other Git', false, true],
          ['down-git', 'oauth2-test', 'oauth2-test', false, true],
        ],
      );
      assert.deepEqual(listed.links, []);
      const one = await alice.externalAuth('git');
      assert.equal(one.authenticated, false);
      assert.equal(one.user, null);
      await expectApiError(alice.externalAuth('nope'), 404, /nope/);
      await expectApiError(alice.unlinkExternalAuth('git'), 404);
      assert.equal((await visit(alice, '/external-auth/nope/callback')).status, 404);
      // Signed out, a browser is sent to sign in and back; an API client is told 401.
      const signedOut = await fetch(`${test.url}/gitauth/git/callback?redirect=%2Ftemplates`, {
        headers: { accept: 'text/html' },
        redirect: 'manual',
      });
      assert.equal(signedOut.status, 307);
      assert.equal(
        signedOut.headers.get('location'),
        `${test.url}/login?redirect=${encodeURIComponent('/gitauth/git/callback?redirect=%2Ftemplates')}`,
      );
      assert.equal((await fetch(`${test.url}/external-auth/git/callback`, { redirect: 'manual' })).status, 401);
      assert.equal((await rawRequest(test.url, 'GET', '/external-auth')).status, 401);
    });

    it('links by the callback flow: state, PKCE, the code exchanged, back to the same-origin redirect', async () => {
      const { authorize, back } = await startAndLogin(alice, 'alice-gh', 'git', '/templates?tab=1');
      assert.equal(authorize.searchParams.get('redirect_uri'), `${test.url}/external-auth/git/callback`);
      assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
      assert.ok((authorize.searchParams.get('state') ?? '').length >= 32);
      const done = await visit(alice, back);
      assert.equal(done.status, 307);
      assert.equal(done.location, '/templates?tab=1');
      // The state was used: the same redirect back is refused the second time.
      assert.equal((await visit(alice, back)).status, 400);

      const linked = await linkOf(alice);
      assert.ok(linked);
      assert.equal(linked.authenticated, true);
      assert.equal(linked.validate_error, '');
      assert.equal(linked.has_refresh_token, true);
      const expiresIn = new Date(linked.expires).getTime() - Date.now();
      assert.ok(expiresIn > 3_000_000 && expiresIn <= 3_600_000, `the access token's expiry: ${linked.expires}`);
      const one = await alice.externalAuth('git');
      assert.equal(one.authenticated, true);
      assert.equal(one.user?.login, 'alice-gh');
      assert.equal(one.display_name, 'Test Git');
      for (const [value, type] of [
        [await alice.externalAuthLinks(), 'ListUserExternalAuthResponse'],
        [linked, 'ExternalAuthLink'],
        [(await alice.externalAuthLinks()).providers[0], 'ExternalAuthLinkProvider'],
        [one, 'ExternalAuth'],
      ] as const) {
        assert.deepEqual(referenceMismatches(value, type, NEWER_FIELDS), [], type);
      }
    });

    it('refuses a state of another user, a forged state, and a redirect off the deployment', async () => {
      const bobs = await startAndLogin(bob, 'bob-gh');
      // Carol is sent Bob's redirect back (code and state): it links nobody to Carol, and leaves Bob's flow.
      const stolen = await visit(carol, bobs.back);
      assert.equal(stolen.status, 400);
      assert.equal(typeof stolen.body['message'], 'string');
      assert.ok(Array.isArray(stolen.body['validations']));
      assert.equal(await linkOf(carol), undefined);
      const forged = new URL(bobs.back);
      forged.searchParams.set('state', 'a-state-nobody-was-given');
      assert.equal((await visit(bob, forged.toString())).status, 400);
      const noState = new URL(bobs.back);
      noState.searchParams.delete('state');
      assert.equal((await visit(bob, noState.toString())).status, 400);
      assert.equal((await visit(bob, bobs.back)).status, 307, 'Bob finishes his own link');
      assert.equal((await linkOf(bob))?.authenticated, true);

      for (const redirect of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)']) {
        const answer = await visit(carol, `/external-auth/git/callback?redirect=${encodeURIComponent(redirect)}`);
        assert.equal(answer.status, 400, redirect);
        assert.equal(answer.location, '');
      }
      const declined = await visit(carol, '/external-auth/git/callback?error=access_denied');
      assert.equal(declined.status, 400);
    });

    it("hands an agent its workspace owner's fresh token, and the link page to an owner who has none", async () => {
      const aliceToken = (await asAgent(ALICE_AGENT, `match=${encodeURIComponent(`${oauth.issuer}/org/repo.git`)}`)).body;
      assert.equal(typeof aliceToken['access_token'], 'string');
      assert.ok(await oauth.isLiveAccessToken(String(aliceToken['access_token'])));
      assert.equal(aliceToken['type'], 'oauth2-test');
      assert.equal(aliceToken['username'], aliceToken['access_token']);
      assert.equal(aliceToken['url'], undefined);
      assert.deepEqual(specMismatches(aliceToken, 'Agent external auth response', false), []);
      const byId = await asAgent(ALICE_AGENT, 'id=git');
      assert.equal(byId.body['access_token'], aliceToken['access_token']);
      const legacy = await rawRequest(test.url, 'GET', '/workspaceagents/me/gitauth?id=git', {
        headers: { 'Service-Session-Token': ALICE_AGENT },
      });
      assert.equal(legacy.body['access_token'], aliceToken['access_token'], 'the removed name answers the same');

      // Carol has not linked: her agent gets the page, never someone else's token.
      const carols = await asAgent(CAROL_AGENT, 'id=git');
      assert.equal(carols.status, 200);
      assert.deepEqual(carols.body, { url: `${test.url}/external-auth/git` });
      assert.deepEqual(specMismatches(carols.body, 'Agent external auth response', false), []);
      const unmatched = await asAgent(ALICE_AGENT, `match=${encodeURIComponent('https://nowhere.example/x.git')}`);
      assert.equal(unmatched.status, 404);
    });

    it('refreshes a token about to expire once, before handing it out, however many ask at once', async () => {
      const before = (await asAgent(ALICE_AGENT, 'id=git')).body['access_token'];
      const grants = oauth.refreshGrants();
      await expireToken(alice, 30_000);
      // Asked three times at once: one refresh, whose token all three get.
      const [after, ...others] = await Promise.all([1, 2, 3].map(() => asAgent(ALICE_AGENT, 'id=git')));
      assert.ok(after);
      assert.equal(after.status, 200, JSON.stringify(after.body));
      assert.notEqual(after.body['access_token'], before);
      for (const other of others) assert.equal(other.body['access_token'], after.body['access_token']);
      assert.equal(oauth.refreshGrants(), grants + 1);
      assert.ok(await oauth.isLiveAccessToken(String(after.body['access_token'])));
      const again = await asAgent(ALICE_AGENT, 'id=git');
      assert.equal(again.body['access_token'], after.body['access_token'], 'the new token is kept');
      assert.equal(oauth.refreshGrants(), grants + 1);
      const linked = await linkOf(alice);
      assert.ok(linked && new Date(linked.expires).getTime() > Date.now() + 3_000_000, linked?.expires);
      assert.equal(linked.authenticated, true);
    });

    it('answers a listening agent once its owner links', { timeout: 30_000 }, async () => {
      const listening = asAgent(CAROL_AGENT, 'id=git&listen=true');
      let settled = false;
      void listening.then(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(settled, false, 'it waits while Carol has not linked');
      await link(carol, 'carol-gh');
      const answer = await listening;
      assert.equal(answer.status, 200);
      assert.equal(answer.body['access_token'], (await asAgent(CAROL_AGENT, 'id=git')).body['access_token']);
      assert.ok(await oauth.isLiveAccessToken(String(answer.body['access_token'])));
    });

    it('links by the device flow, tells which required providers are linked, and refuses a workspace until they are', async () => {
      await expectApiError(dave.externalAuthDevice('other-git'), 400, /device/);
      const required = await dave.templateVersionExternalAuth(requiringVersionId);
      assert.deepEqual(
        required.map((entry) => [entry.id, entry.type, entry.display_name, entry.authenticated, entry.optional, entry.authenticate_url]),
        [
          ['git', 'oauth2-test', 'Test Git', false, false, `${test.url}/external-auth/git`],
          ['other-git', 'oauth2-test', 'Other Git', false, true, `${test.url}/external-auth/other-git`],
        ],
      );
      for (const entry of required) {
        assert.deepEqual(referenceMismatches(entry, 'TemplateVersionExternalAuth', NEWER_FIELDS), [], entry.id);
        assert.deepEqual(specMismatches(entry, 'External auth entry', true), [], entry.id);
      }
      const refused = await expectApiError(dave.createWorkspace('me', { name: 'needs', template_id: requiringTemplateId }), 400);
      assert.deepEqual(
        refused.body.validations?.map((validation) => validation.field),
        ['external_auth'],
        'only the required provider blocks, not the optional one',
      );
      assert.match(refused.body.validations?.[0]?.detail ?? '', new RegExp(`${test.url}/external-auth/git`));

      const device = await dave.externalAuthDevice('git');
      assert.deepEqual(referenceMismatches(device, 'ExternalAuthDevice', NEWER_FIELDS), []);
      await expectApiError(dave.exchangeExternalAuthDevice('git', { device_code: device.device_code }), 400, /authorization_pending/);
      await oauth.completeDevice(device.user_code, 'dave-gh');
      await dave.exchangeExternalAuthDevice('git', { device_code: device.device_code });
      assert.equal((await dave.externalAuth('git')).user?.login, 'dave-gh');

      assert.equal((await dave.templateVersionExternalAuth(requiringVersionId))[0]?.authenticated, true);
      const created = await dave.createWorkspace('me', { name: 'needs', template_id: requiringTemplateId });
      assert.equal(created.name, 'needs');
      // The owner creating for Dave is judged by Dave's links, not the owner's.
      await expectApiError(owner.createWorkspace('me', { name: 'owners', template_id: requiringTemplateId }), 400, /external_auth/);
      assert.equal((await owner.createWorkspace('dave', { name: 'for-dave', template_id: requiringTemplateId })).owner_name, 'dave');
    });

    it('unlinks, revoking the token at the provider', async () => {
      const before = await linkOf(bob);
      assert.ok(before);
      const fromDb = await test.daemon.store.db
        .selectFrom('external_auth_links')
        .select('oauth_access_token')
        .where('provider_id', '=', 'git')
        .where('user_id', '=', (await bob.user('me')).id)
        .executeTakeFirstOrThrow();
      assert.ok(await oauth.isLiveAccessToken(fromDb.oauth_access_token));
      const answer = await bob.unlinkExternalAuth('git');
      assert.equal(answer.token_revoked, true);
      assert.equal(await oauth.isLiveAccessToken(fromDb.oauth_access_token), false);
      assert.equal(await linkOf(bob), undefined);
      await expectApiError(bob.unlinkExternalAuth('git'), 404);
    });

    it('answers 502 while a provider does not answer, and leaves the link as it was', async () => {
      const now = test.clock.now().toISOString();
      await test.daemon.store.db
        .insertInto('external_auth_links')
        .values({
          provider_id: 'down-git',
          user_id: (await alice.user('me')).id,
          oauth_access_token: 'an-expired-token',
          oauth_access_token_key_id: null,
          oauth_refresh_token: 'a-refresh-token',
          oauth_refresh_token_key_id: null,
          oauth_expiry: new Date(test.clock.now().getTime() - 1000).toISOString(),
          oauth_extra: '{}',
          validate_error: '',
          created_at: now,
          updated_at: now,
        })
        .execute();
      const answer = await asAgent(ALICE_AGENT, 'id=down-git');
      assert.equal(answer.status, 502, JSON.stringify(answer.body));
      assert.match(String(answer.body['message']), /down-git/);
      const linked = await linkOf(alice, 'down-git');
      assert.equal(linked?.validate_error, '', 'not a re-link: the provider may answer again');
      assert.equal(linked?.authenticated, true);
    });

    it("marks a link whose token the provider's validate URL no longer accepts as needing a re-link", async () => {
      assert.equal((await carol.externalAuth('git')).authenticated, true);
      oauth.revokeAll();
      const one = await carol.externalAuth('git');
      assert.equal(one.authenticated, false);
      assert.equal(one.user, null);
      const linked = await linkOf(carol);
      assert.equal(linked?.authenticated, false);
      assert.match(linked?.validate_error ?? '', /^re-link needed: .*no longer accepts/);
    });

    it('marks a link whose refresh the provider refuses as needing a re-link, and sends the agent to the link page', async () => {
      // The provider forgot every grant (the case above): Alice's refresh token is refused too.
      await expireToken(alice, -1000);
      const answer = await asAgent(ALICE_AGENT, 'id=git');
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body, { url: `${test.url}/external-auth/git` });
      const listed: ListUserExternalAuthResponse = await alice.externalAuthLinks();
      const linked = listed.links.find((candidate) => candidate.provider_id === 'git');
      assert.equal(linked?.authenticated, false);
      assert.match(linked?.validate_error ?? '', /^re-link needed: /);
      assert.ok((linked?.validate_error.length ?? 0) <= 400);
      assert.equal((await alice.externalAuth('git')).authenticated, false);
      // Linking again clears it.
      await link(alice, 'alice-gh');
      assert.equal((await linkOf(alice))?.validate_error, '');
      assert.equal(typeof (await asAgent(ALICE_AGENT, 'id=git')).body['access_token'], 'string');
    });
  });
}
