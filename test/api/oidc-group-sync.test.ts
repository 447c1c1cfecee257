import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RawValues } from '../../src/domain/deployment-options.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { Browser, type Page } from '../helpers/browser.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const CALLBACK = '/api/v2/users/oidc/callback';

async function start(
  provider: TestOidcProvider,
  dialect: 'sqlite' | 'postgres',
  flags: RawValues,
): Promise<{ test: TestDaemon; owner: CoveClient }> {
  const test = await startTestDaemon({
    database: dialect,
    flags: { oidcIssuerUrl: provider.issuer, oidcClientId: provider.clientId, oidcClientSecret: provider.clientSecret, ...flags },
  });
  await provider.allowRedirect(`${test.url}${CALLBACK}`);
  return { test, owner: await createOwner(test) };
}

/** Signs in at the provider as `accountId` and comes back; the final answer of the daemon. */
async function signIn(browser: Browser, test: TestDaemon, accountId: string): Promise<Page> {
  const begin = await browser.request(`${test.url}${CALLBACK}`);
  assert.equal(begin.status, 307, begin.body);
  const back = await signInAtProvider(browser, begin.location ?? '', accountId);
  return browser.request(back.location ?? '');
}

async function signedIn(test: TestDaemon, accountId: string): Promise<CoveClient> {
  const browser = new Browser();
  const final = await signIn(browser, test, accountId);
  assert.equal(final.status, 307, final.body);
  const token = browser.cookie(test.url, 'service_session_token');
  assert.ok(token, 'no session cookie');
  return test.anonymous.withToken(token);
}

/** The names of the groups a user is a stored member of, and their sources, from the database. */
async function groupsOf(test: TestDaemon, userId: string): Promise<string[]> {
  const rows = await test.daemon.store.db
    .selectFrom('group_members')
    .innerJoin('groups', 'groups.id', 'group_members.group_id')
    .select(['groups.name', 'groups.source'])
    .where('group_members.user_id', '=', userId)
    .execute();
  return rows.map((row) => `${row.name}:${row.source}`).sort();
}

async function groupNames(test: TestDaemon): Promise<string[]> {
  const rows = await test.daemon.store.db.selectFrom('groups').select('name').execute();
  return rows.map((row) => row.name).sort();
}

/** A group made by an administrator (source `user`), in the default organization, through the groups route. */
async function createGroup(owner: CoveClient, name: string): Promise<string> {
  const organizationId = (await owner.organization('default')).id;
  return (await owner.createGroup(organizationId, { name })).id;
}

for (const dialect of TEST_DIALECTS) {
  describe(`OIDC group and role sync (${dialect})`, () => {
    let provider: TestOidcProvider;
    let test: TestDaemon;
    let owner: CoveClient;
    before(async () => {
      provider = await startOidcProvider();
      ({ test, owner } = await start(provider, dialect, {
        oidcGroupField: 'groups',
        oidcGroupMapping: '{"eng-all":"engineering","ops":["operators","oncall"]}',
        oidcGroupRegexFilter: '^(?!secret)',
        oidcGroupAutoCreate: 'true',
        oidcUserRoleField: 'roles',
        oidcUserRoleMapping: '{"admins":["template-admin","auditor"]}',
      }));
    });
    after(async () => {
      await test.close();
      await provider.close();
    });

    it('puts the user in the mapped groups, creating them, and gives the mapped site roles', async () => {
      provider.accounts.set('alice-sub', {
        email: 'alice@example.com',
        preferredUsername: 'alice',
        extraClaims: { groups: ['eng-all', 'ops', 'secret-club', 'Everyone'], roles: ['admins', 'wizard'] },
      });
      const alice = await signedIn(test, 'alice-sub');
      const me = await alice.user('me');
      assert.deepEqual(await groupsOf(test, me.id), ['engineering:oidc', 'oncall:oidc', 'operators:oidc']);
      // The filtered name is neither created nor joined; the Everyone group is never stored as a membership.
      assert.ok(!(await groupNames(test)).includes('secret-club'));
      assert.deepEqual(me.roles.map((role) => role.name).sort(), ['auditor', 'template-admin']);

      const claims = await alice.oidcClaims();
      assert.deepEqual(claims.claims['groups'], ['eng-all', 'ops', 'secret-club', 'Everyone']);
      assert.equal(claims.claims['email'], 'alice@example.com');
      await expectApiError(owner.oidcClaims(), 400, /not an OIDC user/);
    });

    it('removes the user from the groups a later sign-in no longer names, and their cached session sees it', async () => {
      const earlier = await signedIn(test, 'alice-sub');
      const me = await earlier.user('me');
      const design = await createGroup(owner, 'design');
      await owner.patchGroup(design, { add_users: [me.id] });
      provider.accounts.set('alice-sub', {
        email: 'alice@example.com',
        preferredUsername: 'alice',
        extraClaims: { groups: ['eng-all'], roles: [] },
      });
      await signedIn(test, 'alice-sub');
      // Sync owns the organization's memberships, as the reference's: the hand-made group goes too.
      assert.deepEqual(await groupsOf(test, me.id), ['engineering:oidc']);
      assert.deepEqual((await earlier.user('me')).roles, []);
      // The groups themselves stay.
      for (const name of ['design', 'oncall', 'operators']) assert.ok((await groupNames(test)).includes(name), name);
    });

    it('previews for an owner what the claims map to, and hides the preview from others', async () => {
      provider.accounts.set('bob-sub', {
        email: 'bob@example.com',
        preferredUsername: 'bob',
        extraClaims: { groups: ['ops', 'secret-x', 'brand-new'], roles: ['admins', 'wizard'] },
      });
      const bob = await signedIn(test, 'bob-sub');
      const preview = await owner.idpSyncPreview('bob');
      assert.equal(preview.username, 'bob');
      assert.deepEqual(preview.claims?.['groups'], ['ops', 'secret-x', 'brand-new']);
      assert.ok(preview.claims_received_at);
      assert.equal(preview.group_sync.enabled, true);
      assert.deepEqual(preview.group_sync.claim_values, ['ops', 'secret-x', 'brand-new']);
      assert.deepEqual(
        preview.group_sync.groups.map((g) => `${g.claim_value}>${g.group_name}:${g.status}:${g.member}`),
        ['ops>operators:mapped:true', 'ops>oncall:mapped:true', 'secret-x>secret-x:filtered:false', 'brand-new>brand-new:mapped:true'],
      );
      assert.deepEqual(preview.group_sync.groups_removed, []);
      assert.deepEqual(
        preview.role_sync.roles.map((r) => `${r.claim_value}>${r.role}:${r.status}`),
        ['admins>template-admin:assigned', 'admins>auditor:assigned', 'wizard>wizard:ignored'],
      );
      assert.deepEqual(preview.role_sync.site_roles, ['auditor', 'template-admin']);
      assert.equal(preview.allowed_groups.allowed, true);

      // A member, even asking about themselves, does not see it; an owner who never used OIDC has no claims.
      await expectApiError(bob.idpSyncPreview('bob'), 404);
      const self = await owner.idpSyncPreview('me');
      assert.equal(self.claims, null);
      assert.deepEqual(self.group_sync.groups, []);
    });
  });

  describe(`OIDC allowed groups, and sync without auto-creation (${dialect})`, () => {
    let provider: TestOidcProvider;
    let test: TestDaemon;
    let owner: CoveClient;
    before(async () => {
      provider = await startOidcProvider();
      ({ test, owner } = await start(provider, dialect, {
        oidcGroupField: 'groups',
        oidcAllowedGroups: 'staff,contractors-approved',
      }));
      await createGroup(owner, 'staff');
    });
    after(async () => {
      await test.close();
      await provider.close();
    });

    it('lets in a user with an allowed group, joining only the groups that exist', async () => {
      provider.accounts.set('carol-sub', {
        email: 'carol@example.com',
        preferredUsername: 'carol',
        extraClaims: { groups: ['staff', 'newteam'] },
      });
      const carol = await signedIn(test, 'carol-sub');
      const me = await carol.user('me');
      assert.deepEqual(await groupsOf(test, me.id), ['staff:user']);
      assert.ok(!(await groupNames(test)).includes('newteam'));
      const preview = await owner.idpSyncPreview('carol');
      assert.deepEqual(
        preview.group_sync.groups.map((g) => `${g.group_name}:${g.status}`),
        ['staff:mapped', 'newteam:missing'],
      );
      assert.equal(preview.role_sync.enabled, false);
    });

    it('refuses a user outside the allowed groups with a page that says why, and creates no account', async () => {
      provider.accounts.set('dave-sub', { email: 'dave@example.com', preferredUsername: 'dave', extraClaims: { groups: ['contractors'] } });
      provider.accounts.set('erin-sub', { email: 'erin@example.com', preferredUsername: 'erin' });
      const before = (await owner.users()).count;
      const refused = await signIn(new Browser(), test, 'dave-sub');
      assert.equal(refused.status, 403);
      assert.match(refused.headers.get('content-type') ?? '', /text\/html/);
      assert.match(refused.body, /Not a member of an allowed group/);
      const noClaim = await signIn(new Browser(), test, 'erin-sub');
      assert.equal(noClaim.status, 403);
      assert.match(noClaim.body, /sent no &quot;groups&quot; claim/);
      assert.equal((await owner.users()).count, before);
    });
  });
}
