import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template } from '../../src/sdk/wire/index.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { createMember, createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard');

// The template permissions page in a real Chromium against a daemon serving the checkout's built
// dashboard (`node scripts/build.mjs`): the owner adds a member and the Everyone group, changes a
// role and removes entries, and each change is what the API then answers.
describe('the template permissions page in a real browser', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let aliceId: string;
  let template: Template;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];

  const roles = async () => {
    const acl = await owner.templateAcl(template.id);
    return [
      ...acl.users.map((user) => `user:${user.username}:${user.role}`),
      ...acl.group.map((group) => `group:${group.name}:${group.role}`),
    ].sort();
  };

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    await mkdir(SCREENSHOTS, { recursive: true });
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    aliceId = (await alice.user('me')).id;
    template = (await createEchoTemplate(owner, 'guarded', {}, { settings: { disable_everyone_group_access: true } })).template;

    browser = await launchChromium({ width: 1280, height: 800 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it('reaches the page from the template page and shows nobody named yet', async () => {
    await page.goto(`${test.url}/templates/guarded`);
    await page.getByRole('link', { name: 'Permissions' }).click();
    await page.waitForURL(`${test.url}/templates/guarded/permissions`);
    await page.getByRole('heading', { name: 'Permissions', level: 1 }).waitFor();
    await page.getByText('Nobody is named').waitFor();
  });

  it('adds a member and the Everyone group, each with the role chosen', async () => {
    assert.equal(
      (await alice.templates()).some((t) => t.id === template.id),
      false,
    );
    await page.getByLabel('User or group', { exact: true }).selectOption({ label: 'alice' });
    await page.getByLabel('Role', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Added alice as admin.' }).waitFor();
    await page.getByLabel('Role of alice').waitFor();
    assert.equal(await page.getByLabel('Role of alice').inputValue(), 'admin');

    await page.getByLabel('User or group', { exact: true }).selectOption({ label: 'Everyone' });
    await page.getByLabel('Role', { exact: true }).selectOption('use');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByLabel('Role of Everyone').waitFor();
    assert.deepEqual(await roles(), ['group:Everyone:use', 'user:alice:admin']);
    assert.equal(
      (await alice.templates()).some((t) => t.id === template.id),
      true,
    );
    // Whoever is named is no longer offered.
    assert.equal(await page.getByLabel('User or group', { exact: true }).locator('option', { hasText: 'alice' }).count(), 0);
    await page.screenshot({ path: join(SCREENSHOTS, 'template-permissions-1280.png'), fullPage: true });
  });

  it('changes a role and removes entries', async () => {
    await page.getByLabel('Role of alice').selectOption('use');
    await page.getByRole('status').filter({ hasText: 'alice now has the role use.' }).waitFor();
    await eventually(async () => assert.deepEqual(await roles(), ['group:Everyone:use', 'user:alice:use']));

    await page.getByRole('button', { name: 'Remove Everyone' }).click();
    await page.getByRole('status').filter({ hasText: 'Removed Everyone.' }).waitFor();
    await page.getByRole('button', { name: 'Remove alice' }).click();
    await page.getByText('Nobody is named').waitFor();
    assert.deepEqual(await roles(), []);
    assert.equal(
      (await alice.templates()).some((t) => t.id === template.id),
      false,
    );
    assert.deepEqual(pageErrors, []);
  });

  it("tells a user of the template that its permissions are its admins' to see", async () => {
    await owner.updateTemplateAcl(template.id, { user_perms: { [aliceId]: 'use' } });
    // Signed in as alice instead, in the same browser.
    await browser.context.clearCookies();
    await signInWithPassword(page, test.url, 'alice@example.com', STRONG_PASSWORD);
    await page.goto(`${test.url}/templates/guarded/permissions`);
    await page.getByText('Only the template’s admins see and change its permissions.').waitFor();
    assert.equal(await page.getByRole('cell', { name: /alice/ }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Remove alice' }).count(), 0);
    assert.equal(await page.getByRole('heading', { name: 'Add a user or group' }).count(), 0);
  });
});
