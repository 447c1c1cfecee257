import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { Browser } from '../helpers/browser.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard');
const CALLBACK = '/api/v2/users/oidc/callback';

// The owner's IdP sync preview page, in a real Chromium against a daemon serving the checkout's
// built dashboard (`node scripts/build.mjs`), for a user who signed in through a real OIDC provider.
describe('the dashboard previews group and role sync for a user', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let provider: TestOidcProvider;
  let test: TestDaemon;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    provider = await startOidcProvider();
    test = await startTestDaemon({
      flags: {
        oidcIssuerUrl: provider.issuer,
        oidcClientId: provider.clientId,
        oidcClientSecret: provider.clientSecret,
        oidcGroupField: 'groups',
        oidcGroupMapping: '{"eng-all":"engineering"}',
        oidcGroupRegexFilter: '^(?!secret)',
        oidcGroupAutoCreate: 'true',
        oidcUserRoleField: 'roles',
      },
    });
    await provider.allowRedirect(`${test.url}${CALLBACK}`);
    await createOwner(test);
    provider.accounts.set('bob-sub', {
      email: 'bob@example.com',
      preferredUsername: 'bob',
      extraClaims: { groups: ['eng-all', 'secret-club'], roles: ['auditor', 'wizard'] },
    });
    const oidcBrowser = new Browser();
    const begin = await oidcBrowser.request(`${test.url}${CALLBACK}`);
    const back = await signInAtProvider(oidcBrowser, begin.location ?? '', 'bob-sub');
    assert.equal((await oidcBrowser.request(back.location ?? '')).status, 307);

    browser = await launchChromium({ width: 1280, height: 800 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  after(async () => {
    await browser?.close();
    await test?.close();
    await provider?.close();
  });

  it("shows the owner the user's claims and what sync maps them to", async () => {
    await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);

    await page.goto(`${test.url}/deployment/idp-sync`);
    await page.getByRole('heading', { name: 'IdP sync preview' }).waitFor();
    await page.getByLabel('User').fill('bob');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.waitForURL(`${test.url}/deployment/idp-sync?user=bob`);
    await page.getByRole('heading', { name: 'Claims of bob' }).waitFor();

    assert.match(await page.locator('pre.claims').innerText(), /"secret-club"/);
    const rows = await page.getByRole('table', { name: 'Groups the claims map to' }).locator('tbody tr').allInnerTexts();
    assert.deepEqual(
      rows.map((row) => row.split('\t').map((cell) => cell.trim())),
      [
        ['eng-all', 'engineering', 'synced', 'yes'],
        ['secret-club', 'secret-club', 'filtered out by the regex', 'no'],
      ],
    );
    const roles = await page.locator('#roles-title + p + ul li').allInnerTexts();
    assert.deepEqual(roles, ['auditor → auditor: assigned', 'wizard → wizard: ignored (not an assignable site role)']);
    await page.getByText('Site roles after sync: auditor').waitFor();
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'idp-sync-preview-1280.png'), fullPage: true });
    assert.deepEqual(pageErrors, []);
  });
});
