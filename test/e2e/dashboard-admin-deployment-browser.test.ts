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
import { eventually } from '../helpers/eventually.js';
import { TestLicenseIssuer } from '../helpers/licenses.js';
import { createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard/admin-deployment');

/** A value no page or answer may carry: the SMTP password is a secret option. */
const SMTP_PASSWORD = 'never-shown-Pa55word-7d1c';

// The deployment's settings, health and licenses pages in a real Chromium against a daemon serving
// the checkout's built dashboard (`node scripts/build.mjs`). Each change made on a page is read
// back through the API.
describe(
  'the deployment settings, health and licenses pages in a real browser',
  { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() },
  () => {
    const issuer = new TestLicenseIssuer();
    let test: TestDaemon;
    let owner: CoveClient;
    let browser: HeadlessChromium;
    let page: Page;
    const pageErrors: string[] = [];

    before(async () => {
      assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
      await mkdir(SCREENSHOTS, { recursive: true });
      test = await startTestDaemon({
        flags: { licensePublicKeys: issuer.trustEntry, sshHostnamePrefix: 'e2e-box--', emailSmtpPassword: SMTP_PASSWORD },
      });
      owner = await createOwner(test);
      browser = await launchChromium({ width: 1280, height: 900 });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
    });

    after(async () => {
      await browser?.close();
      await test?.close();
    });

    it('shows a configured option with its flag and where it came from, and no secret value', async () => {
      const config = await owner.deploymentConfig();
      assert.ok(!JSON.stringify(config).includes(SMTP_PASSWORD), 'the API answer does not carry the SMTP password');
      const secret = config.options.find((option) => option.flag === 'email-smtp-password');
      assert.equal(secret?.annotations?.['secret'], 'true');
      assert.equal(secret?.value_source, 'flag');

      await page.goto(`${test.url}/deployment`);
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      await page.waitForURL(`${test.url}/deployment/settings`);
      await page.getByRole('heading', { name: 'Deployment settings', level: 1 }).waitFor();
      const prefix = page.locator('[data-option="ssh-hostname-prefix"]');
      await prefix.waitFor();
      const prefixText = (await prefix.textContent()) ?? '';
      assert.match(prefixText, /e2e-box--/);
      assert.match(prefixText, /--ssh-hostname-prefix/);
      assert.match(prefixText, /COVE_SSH_HOSTNAME_PREFIX/);
      assert.match(prefixText, /set by flag/);
      const password = page.locator('[data-option="email-smtp-password"]');
      assert.match((await password.textContent()) ?? '', /set, not shown/);
      await page.getByRole('heading', { name: 'Build and usage' }).waitFor();
      assert.equal(await page.locator('[data-fact="version"]').textContent(), (await owner.buildInfo()).version);
      assert.ok(!(await page.content()).includes(SMTP_PASSWORD), 'the page does not carry the SMTP password');
      await page.screenshot({ path: join(SCREENSHOTS, 'settings-1280.png') });

      // The search narrows the options to those that match, and the changed-only switch to those set.
      await page.getByLabel('Search options').fill('hostname prefix');
      await eventually(async () => assert.equal(await page.locator('[data-option]').count(), 1));
      await page.getByLabel('Search options').fill('');
      await page.getByLabel('Only options not at their default').check();
      await eventually(async () => {
        const shown = await Promise.all((await page.locator('[data-option]').all()).map((row) => row.getAttribute('data-option')));
        assert.ok(shown.includes('ssh-hostname-prefix') && shown.includes('email-smtp-password'), shown.join(', '));
        assert.ok(!shown.includes('ssh-config-options'), shown.join(', '));
      });
      await page.screenshot({ path: join(SCREENSHOTS, 'settings-changed-1280.png'), fullPage: true });
    });

    it('shows each health section, opens its details, dismisses one and takes the dismissal back', async () => {
      await owner.updateHealthSettings({ dismissed_healthchecks: [] });
      await page.goto(`${test.url}/deployment`);
      await page.getByRole('link', { name: 'Health details' }).click();
      await page.waitForURL(`${test.url}/deployment/health`);
      await page.getByRole('heading', { name: 'Health', level: 1 }).waitFor();
      const database = page.getByRole('region', { name: 'Database' });
      await database.waitFor({ timeout: 60_000 });
      for (const name of ['Access URL', 'WebSocket', 'Relay', 'Provisioners', 'Workspace proxies'])
        await page.getByRole('region', { name }).waitFor();

      await database.getByText('Details of Database').click();
      await database.getByText('latency_ms').waitFor();
      assert.ok(await database.getByText('threshold_ms').isVisible());
      // Nested fields are there as the check sent them.
      await page.getByRole('region', { name: 'Relay' }).getByText('Details of Relay').click();
      await page.getByRole('region', { name: 'Relay' }).getByRole('heading', { name: 'regions' }).waitFor();

      await database.getByRole('button', { name: 'Dismiss Database' }).click();
      await page.getByRole('status').filter({ hasText: 'Dismissed Database.' }).waitFor();
      await database.getByRole('button', { name: 'Undismiss Database' }).waitFor();
      assert.equal(await database.locator('.badge').first().textContent(), 'dismissed');
      assert.deepEqual((await owner.healthSettings()).dismissed_healthchecks, ['Database']);
      assert.equal((await owner.healthReport()).database.dismissed, true);
      await page.screenshot({ path: join(SCREENSHOTS, 'health-1280.png'), fullPage: true });

      // A reload shows the section still dismissed, from the server.
      await page.reload();
      await page.getByRole('region', { name: 'Database' }).getByRole('button', { name: 'Undismiss Database' }).click();
      await page.getByRole('status').filter({ hasText: 'Database counts again.' }).waitFor();
      assert.deepEqual((await owner.healthSettings()).dismissed_healthchecks, []);

      // Check again runs the checks anew: the report's time moves on.
      const before = await page.locator('.page time').first().getAttribute('datetime');
      test.clock.advance(60_000);
      await page.getByRole('button', { name: 'Check again' }).click();
      await page.getByRole('status').filter({ hasText: 'Checked again.' }).waitFor({ timeout: 60_000 });
      const afterwards = await page.locator('.page time').first().getAttribute('datetime');
      assert.notEqual(afterwards, before);
      assert.deepEqual(pageErrors, []);
    });

    it('adds a license, shows the error for a bad one, and removes a license after asking', async () => {
      const token = await issuer.license({ now: test.clock.now(), features: { audit_log: 1, user_limit: 25 } });
      await page.goto(`${test.url}/deployment/licenses`);
      await page.getByRole('heading', { name: 'Licenses', level: 1 }).waitFor();
      await page.getByText('No license has been added.').waitFor();

      // A token that is no license: the server's message and its detail.
      await page.getByLabel('License key').fill('not.a.license');
      await page.getByRole('button', { name: 'Add license' }).click();
      const refusal = page.getByRole('alert');
      await refusal.waitFor();
      assert.match((await refusal.textContent()) ?? '', /Invalid license/);
      assert.deepEqual(await owner.licenses(), []);

      await page.getByLabel('License key').fill(token);
      await page.getByRole('button', { name: 'Add license' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /Added license \d+\./ })
        .waitFor();
      const [added] = await owner.licenses();
      assert.ok(added);
      const row = page.locator(`[data-license="${added.id}"]`);
      await row.waitFor();
      const features = row.getByRole('list', { name: `Features of license ${added.id}` });
      assert.match((await features.textContent()) ?? '', /audit_log/);
      assert.match((await features.textContent()) ?? '', /user_limit up to 25/);
      assert.match((await row.textContent()) ?? '', /Expires/);
      assert.equal(await page.getByLabel('License key').inputValue(), '');
      await page.screenshot({ path: join(SCREENSHOTS, 'licenses-1280.png'), fullPage: true });

      await row.getByRole('button', { name: 'Remove' }).click();
      // Nothing is removed until the question is answered.
      assert.equal((await owner.licenses()).length, 1);
      await row.getByRole('button', { name: 'Yes, remove' }).click();
      await page.getByText('No license has been added.').waitFor();
      assert.deepEqual(await owner.licenses(), []);
      assert.deepEqual(pageErrors, []);
    });
  },
);
