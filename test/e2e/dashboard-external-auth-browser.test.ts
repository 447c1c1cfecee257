import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import type { TemplateVersion } from '../../src/sdk/wire/index.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { startOAuth2Server, type TestOAuth2Server } from '../helpers/oauth2-server.js';
import { createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard');

// Linking an external auth provider from the dashboard, in a real Chromium against a daemon serving
// the checkout's built dashboard (`node scripts/build.mjs`) and a real OAuth2 server: the create
// page of a template that requires the provider holds Create until the user has linked it through
// the provider's own sign-in in a popup; the account page shows the link and unlinks it.
describe('external auth in the dashboard, in a real browser', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let oauth: TestOAuth2Server;
  let test: TestDaemon;
  let owner: CoveClient;
  let version: TemplateVersion;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    await mkdir(SCREENSHOTS, { recursive: true });
    oauth = await startOAuth2Server();
    test = await startTestDaemon({
      flags: { provisionerDaemons: '1' },
      env: {
        ...oauth.env(0, { ID: 'forge', DISPLAY_NAME: 'Forge' }),
        // A second provider the template names as optional: it never holds Create back.
        ...oauth.env(1, { ID: 'wiki', DISPLAY_NAME: 'Wiki', REGEX: '^https?://wiki\\.invalid/' }),
        // A provider linked by the device flow: the page shows the code to enter at the provider.
        ...oauth.env(2, { ID: 'tracker', DISPLAY_NAME: 'Tracker', DEVICE_FLOW: 'true', REGEX: '^https?://tracker\\.invalid/' }),
      },
    });
    // The browser reads times on the machine's clock: the daemon's stands at the same instant.
    test.clock.set(new Date());
    await oauth.allowRedirect(`${test.url}/external-auth/forge/callback`);
    owner = await createOwner(test);
    ({ version } = await createEchoTemplate(owner, 'needs-forge', {
      parse: { external_auth: ['forge', { id: 'wiki', optional: true }] },
    }));

    browser = await launchChromium({ width: 1280, height: 800 });
    // The OAuth2 server's sign-in page asks for a web font; nothing leaves the machine.
    await browser.context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await test?.close();
    await oauth?.close();
  });

  it('holds Create on the create page until the required provider is linked', async () => {
    await page.goto(`${test.url}/templates/needs-forge/workspace`);
    const forge = page.getByRole('list', { name: 'External authentication' }).getByRole('listitem', { name: 'Forge' });
    const wiki = page.getByRole('list', { name: 'External authentication' }).getByRole('listitem', { name: 'Wiki' });
    await forge.getByRole('button', { name: 'Link Forge' }).waitFor();
    await wiki.getByText('optional').waitFor();
    await page.getByLabel('Workspace name').fill('linked');
    const create = page.getByRole('button', { name: 'Create workspace' });
    assert.equal(await create.isDisabled(), true, 'Create waits for Forge');
    await page.getByText('Link Forge first').waitFor();
    assert.deepEqual(
      (await owner.templateVersionExternalAuth(version.id)).map((auth) => [auth.id, auth.authenticated, auth.optional]),
      [
        ['forge', false, false],
        ['wiki', false, true],
      ],
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'external-auth-create-unlinked.png') });
  });

  it('links through the provider’s sign-in in a popup that closes itself, then creates the workspace', async () => {
    const opened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Link Forge' }).click();
    const popup = await opened;
    // The provider's own sign-in, on its own origin.
    await popup.getByPlaceholder('Enter any login').fill('octocat');
    assert.ok(popup.url().startsWith(oauth.issuer), popup.url());
    await popup.getByPlaceholder('and password').fill('anything');
    await popup.getByRole('button', { name: 'Sign-in' }).click();
    // Back on the dashboard, linked: the window closes itself.
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Continue' }).click();
    await closed;

    const forge = page.getByRole('listitem', { name: 'Forge' });
    await forge.getByText('Linked').waitFor();
    assert.equal(await forge.getByRole('button', { name: 'Link Forge' }).count(), 0);
    const create = page.getByRole('button', { name: 'Create workspace' });
    assert.equal(await create.isEnabled(), true, 'the optional Wiki does not hold Create');
    await page.screenshot({ path: join(SCREENSHOTS, 'external-auth-create-linked.png') });
    await create.click();
    await page.waitForURL(`${test.url}/@owner/linked`);
    const workspace = await owner.workspaceByOwnerAndName('owner', 'linked');
    assert.equal(workspace.latest_build.template_version_id, version.id);
    const forgeLink = await owner.externalAuth('forge');
    assert.equal(forgeLink.authenticated, true);
    assert.equal(forgeLink.user?.login, 'octocat');
  });

  it('lists the link with its expiry on the account page, and unlinks it', async () => {
    await page.locator('.account-menu-button').click();
    await page.getByRole('menuitem', { name: 'External auth' }).click();
    await page.waitForURL(`${test.url}/settings/external-auth`);
    const row = page.getByRole('row', { name: 'Forge' });
    await row.getByText('as octocat').waitFor();
    const { links } = await owner.externalAuthLinks();
    const link = links.find((candidate) => candidate.provider_id === 'forge');
    assert.ok(link);
    // The expiry shown is the access token's, an hour away, and the link renews itself.
    assert.equal(await row.locator('time').getAttribute('datetime'), link.expires);
    await row.getByText(/Expires in (60 minutes|1 hour)/).waitFor();
    await row.getByText('Renews itself').waitFor();
    await page.getByRole('row', { name: 'Wiki' }).getByText('Not linked').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'external-auth-settings.png') });

    await row.getByRole('button', { name: 'Unlink Forge' }).click();
    await row.getByRole('button', { name: 'Unlink', exact: true }).click();
    await row.getByText('Not linked').waitFor();
    await row.getByRole('link', { name: 'Link Forge' }).waitFor();
    await eventually(async () => assert.equal((await owner.externalAuth('forge')).authenticated, false));
    assert.deepEqual(
      (await owner.externalAuthLinks()).links.map((candidate) => candidate.provider_id),
      [],
    );
  });

  it('links again from the account page through the provider, and asks for a re-link once the provider stops accepting the token', async () => {
    await page.getByRole('row', { name: 'Forge' }).getByRole('link', { name: 'Link Forge' }).click();
    // Signed in at the provider since the popup: it may only ask for consent this time.
    const login = page.getByPlaceholder('Enter any login');
    const consent = page.getByRole('button', { name: 'Continue' });
    const linked = page.getByRole('row', { name: 'Forge' }).getByText('as octocat');
    for (let step = 0; step < 3 && !(await linked.isVisible()); step++) {
      await login.or(consent).or(linked).first().waitFor();
      if (await login.isVisible()) {
        await login.fill('octocat');
        await page.getByPlaceholder('and password').fill('anything');
        await page.getByRole('button', { name: 'Sign-in' }).click();
      } else if (await consent.isVisible()) await consent.click();
    }
    await linked.waitFor();
    assert.equal(page.url(), `${test.url}/settings/external-auth`);

    oauth.revokeAll();
    await page.goto(`${test.url}/external-auth/forge`);
    await page.getByText(/^Re-link needed: .*no longer accepts/).waitFor();
    await page.getByRole('link', { name: 'Link Forge again' }).waitFor();
    assert.equal((await owner.externalAuth('forge')).authenticated, false);
    await page.screenshot({ path: join(SCREENSHOTS, 'external-auth-relink.png') });
    assert.deepEqual(pageErrors, []);
  });

  it('links a device-flow provider with the code its page shows', async () => {
    await page.goto(`${test.url}/external-auth/tracker`);
    const code = page.getByLabel('Code to enter');
    await code.waitFor();
    const userCode = ((await code.textContent()) ?? '').trim();
    assert.match(userCode, /\S{4,}/);
    assert.equal((await owner.externalAuth('tracker')).authenticated, false);
    await oauth.completeDevice(userCode);
    // The page polls the exchange at the provider's interval (5 s here), then reads the link again.
    await page.getByText('Linked as octocat.').waitFor({ timeout: 20_000 });
    assert.equal((await owner.externalAuth('tracker')).authenticated, true);
    assert.deepEqual(pageErrors, []);
  });
});
