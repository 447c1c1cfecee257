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
import { startAgentWorkspace, type AgentWorkspace } from '../helpers/agent-workspace.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { cutOpenSockets, openTerminal } from '../helpers/live-sockets.js';
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
    let ownerToken: string;
    let browser: HeadlessChromium;
    let page: Page;
    let shell: AgentWorkspace | undefined;
    const home = mkdtempSync(join(tmpdir(), 'cove-e2e-audit-'));
    const pageErrors: string[] = [];

    /** No page may have a control without a name or a broken reference. */
    const accessible = async (what: string) => assert.deepEqual(await accessibilityFaults(page), [], what);

    before(async () => {
      assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
      await mkdir(SCREENSHOTS, { recursive: true });
      test = await startTestDaemon({ flags: { provisionerDaemons: '1', sessionDurationMs: '720h' } });
      owner = await createOwner(test);
      ownerToken = (await test.anonymous.login('owner@example.com', STRONG_PASSWORD)).session_token;
      browser = await launchChromium({ width: 1280, height: 800 });
      page = browser.context.pages()[0] ?? (await browser.context.newPage());
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
    });

    after(async () => {
      cutOpenSockets();
      await shell?.agent.stop();
      await browser?.close();
      await test?.close();
      rmSync(home, { recursive: true, force: true });
    });

    it('shows a template deletion in the audit log, narrows it by action, and says why a bad filter is refused', async () => {
      const { template } = await createEchoTemplate(owner, 'doomed', {});
      await owner.deleteTemplate(template.id);

      await page.getByRole('link', { name: 'Audit', exact: true }).click();
      await page.waitForURL(`${test.url}/audit`);
      const deletion = page.locator('tr[data-action="delete"][data-resource-type="template"]');
      await deletion.waitFor();
      assert.match(await deletion.innerText(), /owner/);
      assert.match(await deletion.innerText(), /doomed/);
      const everything = await page.locator('tr[data-audit-entry]').count();
      assert.ok(everything > 1, 'the creation is listed too');
      await accessible('the audit page');
      await page.screenshot({ path: join(SCREENSHOTS, 'audit-1280.png') });

      await page.getByLabel('Action').selectOption('delete');
      await page.waitForURL(/\/audit\?q=action%3Adelete$/);
      const answer = await owner.auditLogs({ q: 'action:delete', limit: 25 });
      assert.ok(answer.count > 0 && answer.count < everything, `narrowed: ${answer.count} of ${everything}`);
      await eventually(async () =>
        assert.equal(await page.locator('.pager-range').innerText(), `1–${answer.audit_logs.length} of ${answer.count}`),
      );
      const actions = await page
        .locator('tr[data-audit-entry]')
        .evaluateAll((rows) =>
          rows.map((row) => (row as unknown as { getAttribute(name: string): string | null }).getAttribute('data-action')),
        );
      assert.equal(actions.length, answer.audit_logs.length);
      assert.deepEqual([...new Set(actions)], ['delete']);

      await page.getByRole('searchbox', { name: 'Search the audit log' }).fill('action:delete flavour:sweet');
      await page.getByRole('button', { name: 'Filter' }).click();
      const refused = page.getByRole('alert');
      await refused.waitFor();
      assert.match(await refused.innerText(), /flavour/);
      assert.equal(await page.locator('tr[data-audit-entry]').count(), 0, 'no stale entries under the error');
    });

    it('lists a terminal session opened in the workspace on the connection log page', async () => {
      shell = await startAgentWorkspace({ url: test.url, owner, member: owner, token: 'agent-token-audit-web', home, name: 'shell' });
      const terminal = await openTerminal(test.url, shell.agentId, ownerToken);
      await page.goto(`${test.url}/connectionlog`);
      const row = page.locator('tr[data-type="reconnecting_pty"]');
      await row.waitFor();
      const text = await row.innerText();
      assert.match(text, /owner\/shell/);
      assert.match(text, /main/);
      assert.match(text, /ongoing/);
      await accessible('the connection log page');
      await page.getByLabel('Type').selectOption('ssh');
      await page.waitForURL(/\/connectionlog\?q=type%3Assh$/);
      await page.getByText('No connections match').waitFor();
      terminal.socket.close();
      await terminal.closed;
      // The row's end is written as the relay sees the socket close.
      await eventually(async () => {
        const [logged] = (await owner.connectionLogs({ q: 'type:reconnecting_pty' })).connection_logs;
        assert.ok(logged?.disconnect_time ?? logged?.ssh_info?.disconnect_time, JSON.stringify(logged));
      });
      await page.goto(`${test.url}/connectionlog?q=type%3Areconnecting_pty`);
      await row.waitFor();
      assert.doesNotMatch(await row.locator('[data-cell="duration"]').innerText(), /ongoing/);
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
