import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A machine that costs 4 credits a day while started. */
const VM = { plan: { resources: [{ name: 'vm', daily_cost: 4 }], stop: { resources: [] } } };

// The workspace quota as the dashboard shows it, in a real Chromium against a daemon serving the
// checkout's built dashboard (`node scripts/build.mjs`).
describe('the dashboard shows the workspace quota', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];

  /** Allowances are set in the database: the groups' own pages are not what this suite is about. */
  const setEveryoneAllowance = async (allowance: number) => {
    const orgId = test.daemon.identity.defaultOrganization.id;
    await test.daemon.store.db.updateTable('groups').set({ quota_allowance: allowance }).where('id', '=', orgId).execute();
  };

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', sessionDurationMs: '720h' } });
    owner = await createOwner(test);
    const { template } = await createEchoTemplate(owner, 'vm', VM);
    const first = await owner.createWorkspace('me', { name: 'first', template_id: template.id });
    await owner.followWorkspaceBuildLogs(first.latest_build.id, () => undefined);

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

  it('shows no quota while no group has an allowance', async () => {
    await page.locator('[data-workspace="first"]').waitFor();
    assert.equal(await page.getByLabel('Workspace quota').count(), 0);
    await page.goto(`${test.url}/templates/vm/workspace`);
    await page.getByRole('button', { name: 'Create workspace' }).waitFor();
    await page.getByLabel('Workspace name').waitFor();
    assert.equal(await page.getByLabel('Cost').count(), 0);
  });

  it('shows "Quota: used/budget" on the workspaces list', async () => {
    await setEveryoneAllowance(10);
    await page.goto(`${test.url}/workspaces`);
    const quota = page.getByLabel('Workspace quota');
    await quota.waitFor();
    assert.equal((await quota.innerText()).trim(), 'Quota: 4/10');
  });

  it('shows the cost and what is left on the create page, and the refusal when it would go over', async () => {
    await page.goto(`${test.url}/templates/vm/workspace`);
    const cost = page.getByLabel('Cost');
    await cost.waitFor();
    assert.equal((await cost.innerText()).trim(), 'This workspace costs 4 credits a day; you have 6 of 10 left.');

    await setEveryoneAllowance(5);
    await page.reload();
    await cost.waitFor();
    assert.equal(
      (await cost.innerText()).trim(),
      'This workspace costs 4 credits a day; you have 1 of 5 left: 3 over budget, so it cannot be created.',
    );
    await page.getByLabel('Workspace name').fill('second');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText('This build costs 4 credits a day; you have 1 of 5 left: 3 over budget.').waitFor();
    assert.equal(page.url(), `${test.url}/templates/vm/workspace`, 'the page stays, nothing was created');
    assert.equal((await owner.workspaces()).workspaces.length, 1);
    assert.deepEqual(pageErrors, []);
  });
});
