import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { seriousAxeViolations } from '../helpers/axe-check.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard/axe');

// Every page of the dashboard, in the light and the dark theme, through axe-core in a real
// Chromium: a serious or critical WCAG 2.1 AA violation (contrast, names, roles) fails the test.
describe('every dashboard page passes axe-core in light and dark', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let browser: HeadlessChromium;
  let page: Page;
  let pages: readonly (readonly [name: string, path: string, title: string])[] = [];

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    const { template } = await createEchoTemplate(owner, 'axe', {}, { settings: { description: 'A template to look at' } });
    const axeVersion = (await owner.templateVersion(template.active_version_id)).name;
    const workspace = await owner.createWorkspace('me', { name: 'dev', template_id: template.id });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    await owner.createGroup('default', { name: 'readers' });
    // What a person opens: every page of the router (src/web/router.tsx) that needs no outside service.
    pages = [
      ['workspaces', '/workspaces', 'Workspaces · Cove'],
      ['new workspace', '/workspaces/new?template=axe', 'New workspace from axe · Cove'],
      ['workspace', '/@owner/dev', 'owner/dev · Cove'],
      ['templates', '/templates', 'Templates · Cove'],
      ['template', '/templates/axe', 'Template axe · Cove'],
      ['template permissions', '/templates/axe/permissions', 'Permissions of axe · Cove'],
      ['deployment', '/deployment', 'Deployment · Cove'],
      ['groups', '/groups', 'Groups · Cove'],
      ['group', '/groups/default/readers', 'Group readers · Cove'],
      ['sync preview', '/deployment/idp-sync', 'Group and role sync · Cove'],
      ['audit', '/audit', 'Audit log · Cove'],
      ['connection log', '/connectionlog', 'Connection log · Cove'],
      ['notification settings', '/settings/notifications', 'Notification settings · Cove'],
      ['deployment notifications', '/deployment/notifications', 'Notifications · Cove'],
      ['external auth settings', '/settings/external-auth', 'External authentication · Cove'],
      ['deployment settings', '/deployment/settings', 'Deployment settings · Cove'],
      ['health', '/deployment/health', 'Health · Cove'],
      ['licenses', '/deployment/licenses', 'Licenses · Cove'],
      ['workspace build', '/@owner/dev/builds/1', 'Build #1 of owner/dev · Cove'],
      ['workspace settings', '/@owner/dev/settings', 'Settings of owner/dev · Cove'],
      ['workspace parameters', '/@owner/dev/settings/parameters', 'Parameters of owner/dev · Cove'],
      ['workspace schedule', '/@owner/dev/settings/schedule', 'Schedule of owner/dev · Cove'],
      ['workspace version', '/@owner/dev/settings/version', 'Version of owner/dev · Cove'],
      ['users', '/deployment/users', 'Users · Cove'],
      ['new user', '/deployment/users/new', 'New user · Cove'],
      ['organizations', '/organizations', 'Organizations · Cove'],
      ['organization', '/organizations/cove', 'Organization cove · Cove'],
      ['organization members', '/organizations/cove/members', 'Members of cove · Cove'],
      ['organization roles', '/organizations/cove/roles', 'Roles of cove · Cove'],
      ['new template', '/templates/new', 'New template · Cove'],
      ['template versions', '/templates/axe/versions', 'Versions of axe · Cove'],
      ['template settings', '/templates/axe/settings', 'Settings of axe · Cove'],
      ['template insights', '/templates/axe/insights', 'Insights of axe · Cove'],
      ['template version', `/templates/axe/versions/${axeVersion}`, `Version ${axeVersion} of axe · Cove`],
      ['template editor', `/templates/axe/versions/${axeVersion}/edit`, 'Editing axe · Cove'],
      ['account settings', '/settings/account', 'Account · Cove'],
      ['security settings', '/settings/security', 'Security · Cove'],
      ['appearance settings', '/settings/appearance', 'Appearance · Cove'],
      ['token settings', '/settings/tokens', 'Tokens · Cove'],
      ['ssh key settings', '/settings/ssh-keys', 'SSH keys · Cove'],
      ['schedule settings', '/settings/schedule', 'Schedule · Cove'],
      ['not found', '/no-such-page', 'Page not found · Cove'],
    ];
    browser = await launchChromium({ width: 1280, height: 800 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await test?.close();
  });

  /**
   * Opens each page in a theme and gives what axe found on it, page by page. The pages are reached
   * as a person clicking through reaches them (the router's navigation, no reload), so that axe is
   * put into the page once per theme.
   */
  async function violations(theme: 'light' | 'dark'): Promise<string[]> {
    await owner.updateUserAppearance({ theme_preference: theme });
    await page.goto(`${test.url}/workspaces`);
    await page.locator('h1').first().waitFor();
    assert.equal(await page.evaluate<string | null>('document.documentElement.dataset.theme'), theme);
    const found: string[] = [];
    for (const [name, path, title] of pages) {
      await page.evaluate(`history.pushState(null, '', ${JSON.stringify(path)}); window.dispatchEvent(new Event('cove:navigated'))`);
      // The page sets its title once drawn (polled: the page's CSP refuses waitForFunction's eval).
      for (const started = Date.now(); (await page.title()) !== title;) {
        assert.ok(Date.now() - started < 15_000, `${path} shows "${title}" (it shows "${await page.title()}")`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      // Data still loading is drawn as a spinner; axe looks at the page as a person reads it.
      await page.locator('.loading').first().waitFor({ state: 'detached' });
      for (const violation of await seriousAxeViolations(page, { detailed: true })) found.push(`${theme} ${name} (${path}): ${violation}`);
      await page.screenshot({ path: join(SCREENSHOTS, `${theme}-${name.replaceAll(' ', '-')}.png`) });
    }
    return found;
  }

  it('finds no serious or critical violation on any page in the light theme', async () => {
    assert.deepEqual(await violations('light'), []);
  });

  it('finds no serious or critical violation on any page in the dark theme', async () => {
    assert.deepEqual(await violations('dark'), []);
  });
});
