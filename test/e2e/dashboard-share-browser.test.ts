import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createMember, createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard');
const ECHO = { apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }] } };

// The workspace page's share dialog, in a real Chromium against a daemon serving the checkout's
// built dashboard (`node scripts/build.mjs`): what it does is checked through the API.
describe("the workspace page's share dialog", { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let alice: CoveClient;
  let bob: CoveClient;
  let workspaceId: string;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    await mkdir(SCREENSHOTS, { recursive: true });
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    const owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
    const { template } = await createEchoTemplate(owner, 'echo', ECHO);
    const created = await alice.createWorkspace('me', { name: 'dev', template_id: template.id });
    await alice.followWorkspaceBuildLogs(created.latest_build.id, () => undefined);
    workspaceId = created.id;
    browser = await launchChromium({ width: 1280, height: 800 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it('adds a user with a role, changes the role, adds the Everyone group and removes both', async () => {
    await signInWithPassword(page, test.url, 'alice@example.com', STRONG_PASSWORD);
    await page.goto(`${test.url}/@alice/dev`);
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Only you have access to this workspace.').waitFor();

    await dialog.getByLabel('Search users').fill('bo');
    await dialog.getByRole('option', { name: 'bob', exact: true }).waitFor({ state: 'attached' });
    await dialog.getByLabel('User', { exact: true }).selectOption({ label: 'bob' });
    await dialog.getByLabel('Role of the new user').selectOption('use');
    await dialog.getByRole('button', { name: 'Add user' }).click();
    await dialog.locator('tr[data-share="bob"]').waitFor();
    assert.deepEqual(
      (await alice.workspaceAcl(workspaceId)).users.map((u) => [u.username, u.role]),
      [['bob', 'use']],
    );
    assert.equal((await bob.workspace(workspaceId)).name, 'dev', 'bob sees the workspace now');

    await dialog.getByLabel('Role of bob').selectOption('admin');
    await dialog.getByText('Sharing saved.').waitFor();
    for (let i = 0; i < 50 && (await alice.workspaceAcl(workspaceId)).users[0]?.role !== 'admin'; i++) await page.waitForTimeout(100);
    assert.equal((await alice.workspaceAcl(workspaceId)).users[0]?.role, 'admin');

    await dialog.getByLabel('Group', { exact: true }).selectOption({ label: 'Everyone' });
    await dialog.getByRole('button', { name: 'Add group' }).click();
    await dialog.locator('tr[data-share="Everyone"]').waitFor();
    assert.deepEqual(
      (await alice.workspaceAcl(workspaceId)).group.map((g) => [g.name, g.role]),
      [['Everyone', 'use']],
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'share-dialog-1280.png') });

    await dialog.getByRole('button', { name: 'Remove bob' }).click();
    await dialog.locator('tr[data-share="bob"]').waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: 'Remove Everyone' }).click();
    await dialog.getByText('Only you have access to this workspace.').waitFor();
    assert.deepEqual(await alice.workspaceAcl(workspaceId), { users: [], group: [] });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual(pageErrors, []);
  });

  it("opens a shared workspace's page for a user it is shared with, without offering to share it further", async () => {
    const bobId = (await bob.user('me')).id;
    await alice.updateWorkspaceAcl(workspaceId, { user_roles: { [bobId]: 'use' } });
    await browser.context.clearCookies();
    await signInWithPassword(page, test.url, 'bob@example.com', STRONG_PASSWORD);
    // The page reads the workspace by its owner's name, whom bob may not read as a user.
    const asked = page.waitForResponse(
      (response) => response.url().endsWith('/api/v2/authcheck') && (response.request().postData() ?? '').includes('"share"'),
    );
    await page.goto(`${test.url}/@alice/dev`);
    await page.getByRole('heading', { name: 'dev' }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    // The page has asked whether bob may share it (and been told no) before the button is looked for.
    assert.deepEqual(await (await asked).json(), { share: false });
    assert.equal(await page.getByRole('button', { name: 'Share' }).count(), 0);
    assert.deepEqual(pageErrors, []);
  });
});
