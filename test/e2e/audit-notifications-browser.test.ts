import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import { accessibilityFaults } from '../helpers/accessibility-basics.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard');
const HOUR = 3_600_000;

// The audit log, the connection log, the inbox bell, the notification settings and the autostop
// warning's extend link, in a real Chromium against a daemon serving the checkout's built
// dashboard (`node scripts/build.mjs`). What the page does is read back from the API.
describe(
  'the audit log, connection log and notifications in a real browser',
  { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() },
  () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let browser: HeadlessChromium;
    let page: Page;
    const home = mkdtempSync(join(tmpdir(), 'cove-e2e-audit-'));
    const pageErrors: string[] = [];

    /** No page may have a control without a name or a broken reference. */
    const accessible = async (what: string) => assert.deepEqual(await accessibilityFaults(page), [], what);

    before(async () => {
      assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
      await mkdir(SCREENSHOTS, { recursive: true });
      test = await startTestDaemon({ flags: { provisionerDaemons: '1', sessionDurationMs: '720h' } });
      owner = await createOwner(test);
      browser = await launchChromium({ width: 1280, height: 800 });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
    });

    after(async () => {
      await browser?.close();
      await test?.close();
      rmSync(home, { recursive: true, force: true });
    });

    it('raises the bell for a test notification without a reload, and marking it read lowers it', async () => {
      await page.goto(`${test.url}/workspaces`);
      const bell = page.locator('summary.inbox-bell');
      await eventually(async () => assert.equal(await bell.getAttribute('aria-label'), 'Notifications, none unread'));
      await owner.testNotification();
      await eventually(async () => assert.equal(await bell.getAttribute('aria-label'), 'Notifications, 1 unread'));
      await bell.click();
      const item = page.locator('li[data-notification]');
      await item.first().waitFor();
      await accessible('the open inbox');
      await page.screenshot({ path: join(SCREENSHOTS, 'inbox-1280.png') });
      await item
        .first()
        .getByRole('button', { name: /Mark .* read/ })
        .click();
      await eventually(async () => assert.equal(await bell.getAttribute('aria-label'), 'Notifications, none unread'));
      assert.equal((await owner.inboxNotifications()).unread_count, 0);

      await owner.testNotification();
      await eventually(async () => assert.equal(await bell.getAttribute('aria-label'), 'Notifications, 1 unread'));
      await page.getByRole('button', { name: 'Mark all read' }).click();
      await eventually(async () => assert.equal(await bell.getAttribute('aria-label'), 'Notifications, none unread'));
      assert.equal((await owner.inboxNotifications()).unread_count, 0);
    });

    it('turns a kind of notification off on the settings page, as the preferences API then says', async () => {
      const kinds = await owner.systemNotificationTemplates();
      const kind = kinds.find((item) => item.name === 'Workspace Deleted');
      assert.ok(kind, 'the deployment sends "Workspace Deleted"');
      await page.goto(`${test.url}/settings/notifications`);
      const toggle = page.getByRole('switch', { name: 'Workspace Deleted' });
      assert.equal(await toggle.isChecked(), true);
      await accessible('the notification settings');
      await page.screenshot({ path: join(SCREENSHOTS, 'notification-settings-1280.png') });
      await toggle.click();
      await page.getByText('Workspace Deleted: off.').waitFor();
      const preferences = await owner.userNotificationPreferences('me');
      assert.deepEqual(
        preferences.filter((preference) => preference.id === kind.id).map((preference) => preference.disabled),
        [true],
      );
      await page.reload();
      assert.equal(await page.getByRole('switch', { name: 'Workspace Deleted' }).isChecked(), false);
    });

    it("pauses sending and changes a kind's method on the deployment's notification page", async () => {
      await page.goto(`${test.url}/deployment/notifications`);
      await page.getByRole('heading', { name: 'Kinds of notification' }).waitFor();
      await accessible('the deployment notification settings');
      await page.getByRole('button', { name: 'Pause sending' }).click();
      await page.getByRole('button', { name: 'Resume sending' }).waitFor();
      assert.equal((await owner.notificationsSettings()).notifier_paused, true);
      await page.getByRole('button', { name: 'Resume sending' }).click();
      await page.getByRole('button', { name: 'Pause sending' }).waitFor();
      assert.equal((await owner.notificationsSettings()).notifier_paused, false);

      const kind = (await owner.systemNotificationTemplates()).find((item) => item.name === 'Workspace Deleted');
      assert.ok(kind);
      await page.getByLabel('Method of Workspace Deleted').selectOption('webhook');
      await page.getByText('Workspace Deleted: Webhook.').waitFor();
      assert.equal((await owner.systemNotificationTemplates()).find((item) => item.id === kind.id)?.method, 'webhook');
    });

    it('extends the workspace from the autostop warning link only when the button is pressed', async () => {
      const { template } = await createEchoTemplate(owner, 'timed', {});
      const created = await owner.createWorkspace('me', { name: 'timed', template_id: template.id, ttl_ms: HOUR });
      await owner.followWorkspaceBuildLogs(created.latest_build.id, () => undefined);
      const before = (await owner.workspace(created.id)).latest_build.deadline;
      assert.ok(before, 'the workspace has a deadline');

      await page.goto(`${test.url}/@owner/timed?extend=1h`);
      const banner = page.getByRole('region', { name: 'Workspace stop time' });
      await banner.getByText(/^This workspace stops at \d\d:\d\d$/).waitFor();
      assert.equal((await owner.workspace(created.id)).latest_build.deadline, before, 'opening the link changes nothing');
      await accessible('the workspace page with the extend banner');
      await page.screenshot({ path: join(SCREENSHOTS, 'extend-banner-1280.png') });

      await banner.getByRole('button', { name: 'Extend by 1 hour' }).click();
      await banner.getByText('Extended by 1 hour.').waitFor();
      const after = (await owner.workspace(created.id)).latest_build.deadline;
      assert.equal(Date.parse(after ?? '') - Date.parse(before), HOUR);
      assert.deepEqual(pageErrors, []);
    });
  },
);
