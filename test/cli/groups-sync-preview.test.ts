import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { IdpSyncPreview } from '../../src/sdk/wire/index.js';
import { Browser } from '../helpers/browser.js';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const CALLBACK = '/api/v2/users/oidc/callback';

describe('cove groups sync preview', () => {
  const admin = new CliUser();
  let provider: TestOidcProvider;
  let test: TestDaemon;

  before(async () => {
    provider = await startOidcProvider();
    test = await startTestDaemon({
      flags: {
        oidcIssuerUrl: provider.issuer,
        oidcClientId: provider.clientId,
        oidcClientSecret: provider.clientSecret,
        oidcGroupField: 'groups',
        oidcGroupMapping: '{"eng-all":"engineering"}',
        oidcGroupRegexFilter: '^eng',
        oidcUserRoleField: 'roles',
      },
    });
    await provider.allowRedirect(`${test.url}${CALLBACK}`);
    await admin.signUpFirstUser(test.url, { email: 'admin@example.com', username: 'admin' });
    provider.accounts.set('bob-sub', {
      email: 'bob@example.com',
      preferredUsername: 'bob',
      extraClaims: { groups: ['eng-all', 'sales'], roles: ['auditor', 'wizard'] },
    });
    const browser = new Browser();
    const begin = await browser.request(`${test.url}${CALLBACK}`);
    const back = await signInAtProvider(browser, begin.location ?? '', 'bob-sub');
    assert.equal((await browser.request(back.location ?? '')).status, 307);
  });
  after(async () => {
    await test.close();
    await provider.close();
  });

  it('prints the preview as JSON with -o json', async () => {
    const result = await admin.run('groups', 'sync', 'preview', 'bob', '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    const preview = JSON.parse(result.stdout) as IdpSyncPreview;
    assert.equal(preview.username, 'bob');
    assert.deepEqual(
      preview.group_sync.groups.map((g) => `${g.group_name}:${g.status}`),
      ['engineering:missing', 'sales:filtered'],
    );
    assert.deepEqual(preview.role_sync.site_roles, ['auditor']);
  });

  it('explains the preview to people', async () => {
    const result = await admin.run('groups', 'sync', 'preview', 'bob');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Group sync: claim "groups" = eng-all, sales \(regex filter \^eng, auto-create off\)/);
    assert.match(result.stdout, /eng-all\s+engineering\s+missing\s+no/);
    assert.match(result.stdout, /sales\s+sales\s+filtered\s+no/);
    assert.match(result.stdout, /wizard\s+wizard\s+ignored/);
    assert.match(result.stdout, /Site roles after sync: auditor/);
  });

  it('says when the user does not exist', async () => {
    const result = await admin.run('groups', 'sync', 'preview', 'nobody-here');
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /not found|Resource not found/i);
  });
});
