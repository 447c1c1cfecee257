import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import type { AppearanceConfig } from '../../src/sdk/wire/index.js';
import { supportLinks } from '../../src/web/support-links.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard');
/** The deployment's documentation (`--docs-url`), the help menu's first link. */
const DOCS_URL = 'https://docs.example.com/cove';
/** A deployment that set nothing, as `GET /appearance` answers for it. */
const NO_APPEARANCE: AppearanceConfig = {
  application_name: '',
  logo_url: '',
  docs_url: '',
  service_banner: { enabled: false },
  announcement_banners: [],
};

/** The page's background in each theme: styles.css's `--bg` of the light and the dark palette. */
const LIGHT_BACKGROUND = 'rgb(246, 247, 249)';
const DARK_BACKGROUND = 'rgb(15, 18, 22)';

/** A banner message shaped like markup that would run script if the page rendered it as HTML. */
const SCRIPTED_MESSAGE = 'Maintenance tonight <img src="x" onerror="window.bannerRan = true">';

// The deployment's appearance and the user's theme as the dashboard shows them, in a real
// Chromium against a daemon serving the checkout's built dashboard (`node scripts/build.mjs`).
describe(
  "the dashboard shows the deployment's appearance and the user's theme",
  { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() },
  () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let browser: HeadlessChromium;
    let page: Page;
    /** What the page's console said about refused scripts or styles (the CSP allows none inline). */
    const policyViolations: string[] = [];
    const pageErrors: string[] = [];

    // Page code is passed as text: these tests are type-checked without the DOM's types.
    const background = () => page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor');

    before(async () => {
      assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
      test = await startTestDaemon({ flags: { docsUrl: DOCS_URL } });
      owner = await createOwner(test);
      await owner.updateAppearance({
        application_name: 'Harbor',
        logo_url: '/icon/docker.svg',
        service_banner: { enabled: true, message: SCRIPTED_MESSAGE, background_color: '#ffd700' },
        announcement_banners: [
          { enabled: true, message: 'New templates are available', background_color: '#003366' },
          { enabled: false, message: 'A switched-off announcement', background_color: '#003366' },
        ],
      });
      // Chosen elsewhere (another browser, the CLI): the dashboard reads it at sign-in.
      await owner.updateUserAppearance({ theme_preference: 'dark' });

      browser = await launchChromium({ width: 1280, height: 800 });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) policyViolations.push(message.text());
      });
      // The theme the signed-in frame has when it first enters the document, before it is painted.
      await page.addInitScript(`
      const observer = new MutationObserver(() => {
        if (!document.querySelector('.topbar')) return;
        window.firstFrameBackground = getComputedStyle(document.documentElement).backgroundColor;
        observer.disconnect();
      });
      observer.observe(document, { childList: true, subtree: true });
    `);
    });

    after(async () => {
      await browser?.close();
      await test?.close();
    });

    it("signs in and paints the first signed-in page in the user's theme, not the system's", async () => {
      await page.emulateMedia({ colorScheme: 'light' });
      await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
      await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
      assert.equal(await page.evaluate<string | undefined>('window.firstFrameBackground'), DARK_BACKGROUND);
      assert.equal(await background(), DARK_BACKGROUND);
    });

    it('names the deployment in the header and the title, with its logo', async () => {
      assert.equal(await page.title(), 'Workspaces · Harbor');
      const brand = page.locator('header .brand');
      assert.equal((await brand.innerText()).trim(), 'Harbor');
      assert.equal(await brand.locator('img.brand-logo').getAttribute('src'), '/icon/docker.svg');
    });

    it('shows the service banner and the enabled announcements as text, never running their markup', async () => {
      const banners = page.locator('.banners .banner');
      assert.deepEqual(await banners.allInnerTexts(), [SCRIPTED_MESSAGE, 'New templates are available']);
      assert.equal(await page.locator('.banners img').count(), 0, 'the message made no element');
      assert.equal(await page.evaluate<unknown>('window.bannerRan'), undefined);
      // The owner's colours, and the text in black or white, whichever reads on them.
      const colours = await page.evaluate<string[][]>(
        "[...document.querySelectorAll('.banners .banner')].map((element) => [getComputedStyle(element).backgroundColor, getComputedStyle(element).color])",
      );
      assert.deepEqual(colours, [
        ['rgb(255, 215, 0)', 'rgb(0, 0, 0)'],
        ['rgb(0, 51, 102)', 'rgb(255, 255, 255)'],
      ]);
    });

    it('offers the documentation of --docs-url in the help menu when no support links are configured', async () => {
      await page.getByText('Help', { exact: true }).click();
      const menu = page.getByRole('list', { name: 'Help' });
      await menu.waitFor();
      const links = await page.evaluate<string[][]>(
        "[...document.querySelectorAll('.help-menu-list a')].map((element) => [element.textContent.trim(), element.getAttribute('href'), element.target])",
      );
      // Each name follows its icon.
      assert.deepEqual(
        links.map(([name, href, target]) => [name?.replace(/^\W+/u, ''), href, target]),
        [['Documentation', DOCS_URL, '_blank']],
      );
      await mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'appearance-1440.png') });
      await page.setViewportSize({ width: 375, height: 800 });
      await page.screenshot({ path: join(SCREENSHOTS, 'appearance-375.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.keyboard.press('Escape');
      assert.equal(await menu.isVisible(), false);
    });

    it('switches the theme from the header: applied at once, saved, and kept over a reload', async () => {
      const saved = page.waitForResponse(
        (response) => response.url().endsWith('/api/v2/users/me/appearance') && response.request().method() === 'PUT',
      );
      await page.getByLabel('Theme').selectOption('light');
      assert.equal((await saved).status(), 200);
      assert.equal(await background(), LIGHT_BACKGROUND);
      assert.equal((await owner.userAppearance()).theme_preference, 'light');
      // The system now says dark: the user's choice still wins after a reload.
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.reload();
      await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
      assert.equal(await background(), LIGHT_BACKGROUND);
      assert.equal(await page.getByLabel('Theme').inputValue(), 'light');
      // Auto follows the system.
      const savedAuto = page.waitForResponse(
        (response) => response.url().endsWith('/api/v2/users/me/appearance') && response.request().method() === 'PUT',
      );
      await page.getByLabel('Theme').selectOption('auto');
      assert.equal((await savedAuto).status(), 200);
      assert.equal(await background(), DARK_BACKGROUND);
      assert.equal((await owner.userAppearance()).theme_preference, 'auto');
    });

    it('names the deployment on the sign-in page too, after signing out', async () => {
      await page.locator('.account-menu-button').click();
      await page.getByRole('menuitem', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      assert.equal((await page.locator('.auth .brand').innerText()).trim(), 'Harbor');
      assert.equal(await page.locator('.auth .brand img.brand-logo').getAttribute('src'), '/icon/docker.svg');
      assert.equal(await page.title(), 'Sign in · Harbor');
    });

    it('shows no help menu links when the deployment names none, and its own links as they are', () => {
      assert.deepEqual(supportLinks(NO_APPEARANCE), []);
      const own = [{ name: 'Documentation', target: 'https://wiki.example.com', icon: 'docs' }];
      assert.deepEqual(supportLinks({ ...NO_APPEARANCE, docs_url: DOCS_URL, support_links: own }), own);
    });

    it('ran no refused inline script or style and threw nothing', () => {
      assert.deepEqual(policyViolations, []);
      assert.deepEqual(pageErrors, []);
    });
  },
);
