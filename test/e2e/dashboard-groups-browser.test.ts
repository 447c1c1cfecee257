import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { createMember, createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// The groups pages in a real Chromium against a daemon serving the checkout's built dashboard
// (`node scripts/build.mjs`): an owner makes a group, adds and removes a member, sets the
// allowance and deletes it; a member without the right sees no Groups link.
describe('the dashboard manages groups', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];

  async function signIn(email: string): Promise<void> {
    await signInWithPassword(page, test.url, email, STRONG_PASSWORD);
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  }

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    test = await startTestDaemon();
    owner = await createOwner(test);
    await createMember(test, 'alice');
    browser = await launchChromium({ width: 1280, height: 800 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it('creates a group from the groups page, reached from the navigation', async () => {
    await signIn('owner@example.com');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Groups' }).click();
    await page.waitForURL(`${test.url}/groups`);
    await page.getByRole('table', { name: 'Groups' }).getByRole('link', { name: 'Everyone' }).waitFor();
    const form = page.getByRole('form', { name: 'New group' });
    await form.getByLabel('Name', { exact: true }).fill('designers');
    await form.getByLabel('Display name').fill('Designers');
    await form.getByLabel('Quota allowance').fill('5');
    await form.getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(`${test.url}/groups/cove/designers`);
    await page.getByRole('heading', { name: 'Designers' }).waitFor();
    const made = await owner.organizationGroup('default', 'designers');
    assert.equal(made.display_name, 'Designers');
    assert.equal(made.quota_allowance, 5);
  });

  it('adds and removes a member, and changes the allowance', async () => {
    const add = page.getByRole('form', { name: 'Add member' });
    await add.getByLabel('Username').fill('alice');
    await add.getByRole('button', { name: 'Add member' }).click();
    const members = page.getByRole('table', { name: 'Members' });
    await members.getByRole('cell', { name: 'alice@example.com' }).waitFor();
    assert.deepEqual(
      (await owner.organizationGroup('default', 'designers')).members.map((m) => m.username),
      ['alice'],
    );

    const settings = page.getByRole('form', { name: 'Settings' });
    await settings.getByLabel('Quota allowance').fill('12');
    await settings.getByRole('button', { name: 'Save' }).click();
    await page.getByText('quota allowance 12').waitFor();
    assert.equal((await owner.organizationGroup('default', 'designers')).quota_allowance, 12);

    await page.getByRole('button', { name: 'Remove alice' }).click();
    await page.getByText('No members you can see.').waitFor();
    assert.equal((await owner.organizationGroup('default', 'designers')).total_member_count, 0);
  });

  it('deletes the group after asking, and keeps the Everyone group whole', async () => {
    await page.getByRole('button', { name: 'Delete group' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForURL(`${test.url}/groups`);
    await page.getByRole('table', { name: 'Groups' }).getByRole('link', { name: 'Everyone' }).click();
    await page.getByRole('heading', { name: 'Everyone' }).waitFor();
    // Its members are the organization's: no add form, no remove buttons, no delete.
    await page.getByRole('table', { name: 'Members' }).getByRole('cell', { name: 'alice@example.com' }).waitFor();
    assert.equal(await page.getByRole('form', { name: 'Add member' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete group' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Remove / }).count(), 0);
    await assert.rejects(owner.organizationGroup('default', 'designers'));
    assert.deepEqual(pageErrors, []);
  });

  it('shows a member no Groups link and no forms', async () => {
    await page.locator('.account-menu-button').click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await signIn('alice@example.com');
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Groups' }).count(), 0);
    await page.goto(`${test.url}/groups`);
    await page.getByRole('table', { name: 'Groups' }).getByRole('link', { name: 'Everyone' }).waitFor();
    assert.equal(await page.getByRole('form', { name: 'New group' }).count(), 0);
  });
});
