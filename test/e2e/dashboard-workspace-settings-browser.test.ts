import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { silentLogger, startDaemon, type Daemon } from '../../src/daemon/index.js';
import type { AgentHandle } from '../../src/agent/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { createTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template, Workspace } from '../../src/sdk/wire/index.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { freePort } from '../helpers/free-port.js';
import { createMember, createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard/workspace-settings');
const APPLY = {
  resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }],
  start: { state: 'started' },
  stop: { state: 'stopped' },
};
/** A mutable parameter and an immutable one. */
const VERSION_1 = {
  parse: {
    parameters: [
      { name: 'size', display_name: 'Size', type: 'number', default_value: '2', mutable: true },
      { name: 'region', display_name: 'Region', type: 'string', default_value: 'eu', mutable: false },
    ],
  },
  apply: APPLY,
};
/** The same, and a required parameter the workspace never had. */
const VERSION_2 = {
  parse: { parameters: [...VERSION_1.parse.parameters, { name: 'team', display_name: 'Team', type: 'string', mutable: true }] },
  apply: APPLY,
};

/** Polls `read` until `done` holds (the server finishes builds on its own time). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const value = await read();
    if (done(value)) return value;
    assert.ok(attempt < 600, `${what}: ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// The workspace settings pages and the connection banner, in a real Chromium against a daemon
// serving the checkout's built dashboard (`node scripts/build.mjs`): what each form does is read
// back through the API, and the banner is driven by stopping the daemon and starting it again.
describe("a workspace's settings and the connection banner", { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  /** The daemon now serving (after a restart, no longer `test.daemon`). */
  let daemon: Daemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let template: Template;
  let workspaceId: string;
  let flags: Record<string, string>;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];
  let agent: AgentHandle | undefined;
  let agentHome: string | undefined;

  /** Stops the serving daemon and starts another on the same port and database, with `extra` flags. */
  const restart = async (extra: Record<string, string> = {}) => {
    await daemon.close();
    await startAgain(extra);
  };
  /** Starts a daemon on the port and database of the stopped one. */
  const startAgain = async (extra: Record<string, string> = {}) => {
    daemon = await startDaemon(resolveOptions({ flags: { ...flags, ...extra, dataDir: test.database.dataDir }, env: {} }), {
      logger: silentLogger(),
      clock: test.clock,
    });
  };

  const settled = (what: string, check: (workspace: Workspace) => boolean = () => true) =>
    eventually(
      () => alice.workspace(workspaceId),
      (workspace) => ['running', 'stopped', 'failed'].includes(workspace.latest_build.status) && check(workspace),
      what,
    );

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    await mkdir(SCREENSHOTS, { recursive: true });
    // A fixed port, so that the daemon can stop and start again where the page expects it.
    flags = { provisionerDaemons: '1', httpAddress: `127.0.0.1:${await freePort()}` };
    test = await startTestDaemon({ flags });
    daemon = test.daemon;
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    ({ template } = await createEchoTemplate(owner, 'echo', VERSION_1));
    const created = await alice.createWorkspace('me', { name: 'dev', template_id: template.id });
    await alice.followWorkspaceBuildLogs(created.latest_build.id, () => undefined);
    workspaceId = created.id;
    const other = await alice.createWorkspace('me', { name: 'taken', template_id: template.id });
    await alice.followWorkspaceBuildLogs(other.latest_build.id, () => undefined);
    browser = await launchChromium({ width: 1280, height: 900 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signInWithPassword(page, test.url, 'alice@example.com', STRONG_PASSWORD);
  });
  after(async () => {
    await browser?.close();
    await agent?.stop();
    if (agentHome) await rm(agentHome, { recursive: true, force: true });
    if (daemon !== test?.daemon) {
      await daemon?.close();
      await test?.database.drop();
    } else await test?.close();
  });

  it("renames the workspace from the workspace page's Settings link, shows the server's refusal, and follows the new address", async () => {
    await page.goto(`${test.url}/@alice/dev`);
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.waitForURL(`${test.url}/@alice/dev/settings`);
    assert.equal(await page.title(), 'Settings of alice/dev · Cove');
    const name = page.getByRole('textbox', { name: /^Name/ });
    await page.getByText('This deployment does not allow renaming workspaces.').waitFor();
    // The deployment forbids renames (its default): the server's answer, as it gave it.
    await name.fill('dev2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').getByText('Workspace renames are not allowed.').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'general-refused-1280.png') });
    assert.equal((await alice.workspace(workspaceId)).name, 'dev');

    // Allowed now: a name another workspace has is refused with the server's message.
    await restart({ allowWorkspaceRenames: 'true' });
    await page.reload();
    await name.fill('taken');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /taken|exists|already|in use/i);
    assert.equal((await alice.workspace(workspaceId)).name, 'dev');

    await name.fill('dev2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${test.url}/@alice/dev2/settings`);
    await page.getByRole('heading', { name: /Settings of dev2/ }).waitFor();
    assert.equal((await alice.workspace(workspaceId)).name, 'dev2');
    await page.screenshot({ path: join(SCREENSHOTS, 'general-1280.png') });
  });

  it('changes a mutable parameter, leaves the immutable one read-only, and the new build has the new value', async () => {
    const before = await alice.workspace(workspaceId);
    await page.getByRole('link', { name: 'Parameters' }).click();
    await page.waitForURL(`${test.url}/@alice/dev2/settings/parameters`);
    assert.equal(await page.getByLabel(/Region/).isDisabled(), true, 'an immutable parameter cannot be edited');
    await page.getByLabel(/Size/).fill('5');
    await page.screenshot({ path: join(SCREENSHOTS, 'parameters-1280.png') });
    await page.getByRole('button', { name: 'Update' }).click();
    await page.getByText(/started with the new values/).waitFor({ timeout: 60_000 });
    const after = await settled(
      'a start build after the update',
      (workspace) =>
        workspace.latest_build.transition === 'start' && workspace.latest_build.build_number > before.latest_build.build_number,
    );
    assert.equal(after.latest_build.status, 'running');
    const values = await alice.workspaceBuildParameters(after.latest_build.id);
    assert.deepEqual(
      values.sort((a, b) => a.name.localeCompare(b.name)),
      [
        { name: 'region', value: 'eu' },
        { name: 'size', value: '5' },
      ],
    );
  });

  it('sets autostart from days, a time and a time zone, and autostop in hours', async () => {
    await page.getByRole('link', { name: 'Schedule' }).click();
    await page.waitForURL(`${test.url}/@alice/dev2/settings/schedule`);
    await page.getByRole('checkbox', { name: 'Start this workspace on a schedule' }).check();
    // Monday to Friday to start with; Tuesday and Thursday off.
    await page.getByRole('checkbox', { name: 'Tuesday' }).uncheck();
    await page.getByRole('checkbox', { name: 'Thursday' }).uncheck();
    await page.getByLabel('Start time').fill('08:30');
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    await page.getByLabel(/stop after \(hours without use\)/i).fill('3');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText('Schedule saved.').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'schedule-1280.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(SCREENSHOTS, 'schedule-dark-1280.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: join(SCREENSHOTS, 'schedule-375.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    const saved = await alice.workspace(workspaceId);
    assert.equal(saved.autostart_schedule, 'CRON_TZ=Europe/Berlin 30 8 * * 1,3,5');
    assert.equal(saved.ttl_ms, 3 * 3_600_000);

    // Read back into the form as it was set; every weekday but Tuesday and Thursday.
    await page.reload();
    await page.getByRole('checkbox', { name: 'Wednesday' }).waitFor();
    assert.equal(await page.getByRole('checkbox', { name: 'Wednesday' }).isChecked(), true);
    assert.equal(await page.getByRole('checkbox', { name: 'Tuesday' }).isChecked(), false);
    assert.equal(await page.getByLabel('Start time').inputValue(), '08:30');
    // Every day is `*`; turning autostart off clears it.
    for (const day of ['Tuesday', 'Thursday', 'Saturday', 'Sunday']) await page.getByRole('checkbox', { name: day }).check();
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText('Schedule saved.').waitFor();
    assert.equal((await alice.workspace(workspaceId)).autostart_schedule, 'CRON_TZ=Europe/Berlin 30 8 * * *');

    // The workspace page sums the schedule up and links here.
    await page.goto(`${test.url}/@alice/dev2`);
    const summary = page.locator('[data-summary="schedule"]');
    await summary.getByText('CRON_TZ=Europe/Berlin 30 8 * * *').waitFor();
    await summary.getByText('3h after last use').or(summary.getByText(/3 ?h/)).first().waitFor();
    await page.getByRole('link', { name: 'Change the schedule' }).click();
    await page.waitForURL(`${test.url}/@alice/dev2/settings/schedule`);
  });

  it('changes to the newly active version, asking for its new required parameter first', async () => {
    const { id: fileId } = await owner.uploadFile(await createTar({ 'echo.json': JSON.stringify(VERSION_2) }));
    const version2 = await owner.createTemplateVersion('default', { file_id: fileId, template_id: template.id, name: 'second' });
    await owner.followTemplateVersionLogs(version2.id, () => undefined);
    await owner.promoteTemplateVersion(template.id, version2.id);

    await page.getByRole('link', { name: 'Version' }).click();
    await page.waitForURL(`${test.url}/@alice/dev2/settings/version`);
    await page.locator('[data-version="active"]').getByText('second').waitFor();
    await page.locator('[data-version="current"]').getByText('outdated').waitFor();
    await page.getByRole('button', { name: 'Change version' }).click();
    // `team` is required and new: the build waits for a value.
    await page.getByLabel(/Team/).waitFor();
    await page.getByRole('button', { name: 'Build with these values' }).click();
    await page.getByText('Team is required.').waitFor();
    assert.equal((await alice.workspace(workspaceId)).latest_build.template_version_id, template.active_version_id);
    await page.getByLabel(/Team/).fill('platform');
    await page.screenshot({ path: join(SCREENSHOTS, 'version-1280.png') });
    await page.getByRole('button', { name: 'Build with these values' }).click();
    await page.getByText(/started on version second/).waitFor({ timeout: 60_000 });
    const after = await settled('a build on the second version', (workspace) => workspace.latest_build.template_version_id === version2.id);
    assert.equal(after.latest_build.status, 'running');
    assert.equal(after.outdated, false);
    assert.deepEqual(
      (await alice.workspaceBuildParameters(after.latest_build.id)).find((value) => value.name === 'team'),
      { name: 'team', value: 'platform' },
    );
  });

  it('shows the connection banner while the daemon is down, then reconnects the watch when it is back', async () => {
    await page.goto(`${test.url}/@alice/dev2`);
    const header = page.locator('.workspace-header');
    // Its build ran; its agent, which no process plays here, never connects: the page says starting.
    await header.locator('[data-status="starting"]').waitFor();
    const banner = page.getByText('Connection lost — reconnecting…');

    const down = daemon.close();
    await banner.waitFor({ timeout: 30_000 });
    await down;
    assert.equal(await page.getByRole('status').filter({ hasText: 'Connection lost' }).count(), 1);
    // What the page last heard is marked as possibly out of date.
    assert.equal(await page.evaluate<string>('document.documentElement.dataset.connection'), 'lost');
    const marked = await page.evaluate<string>(
      `getComputedStyle(document.querySelector('.workspace-header [data-status="starting"]'), '::after').content`,
    );
    assert.match(marked, /stale/);
    await page.screenshot({ path: join(SCREENSHOTS, 'connection-lost-1280.png') });
    // "Retry now" while the daemon is still down keeps the banner.
    await page.getByRole('button', { name: 'Retry now' }).click();
    await page.getByRole('button', { name: 'Retry now' }).waitFor();

    daemon = await startDaemon(
      resolveOptions({ flags: { ...flags, allowWorkspaceRenames: 'true', dataDir: test.database.dataDir }, env: {} }),
      {
        logger: silentLogger(),
        clock: test.clock,
      },
    );
    // Back on its own: the streams' and the banner's own retries find the daemon again.
    await banner.waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal(await page.evaluate<string>('document.documentElement.dataset.connection'), 'online');

    // The watch is live again: a stop made through the API shows on the page without a reload.
    const stop = await alice.createWorkspaceBuild(workspaceId, { transition: 'stop' });
    await alice.followWorkspaceBuildLogs(stop.id, () => undefined);
    await header.locator('[data-status="stopped"]').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(SCREENSHOTS, 'connection-back-1280.png') });
    assert.deepEqual(pageErrors, []);
  });

  it("says the terminal's connection closed, never connected, while the daemon is down, and attaches again on its own", async () => {
    agentHome = await mkdtemp(join(tmpdir(), 'cove-settings-agent-'));
    ({ agent } = await startAgentWorkspace({
      url: test.url,
      owner,
      member: alice,
      token: 'agent-token-for-the-terminal-banner',
      home: agentHome,
      name: 'term',
      templateName: 'with-agent',
      timing: { reconnect: { initialMs: 200, maxMs: 1_000 } },
    }));
    await page.goto(`${test.url}/@alice/term.main/terminal`);
    const host = page.locator('.terminal-host');
    await page.locator('.terminal-host[data-connection="connected"]').waitFor({ timeout: 30_000 });
    const bar = page.locator('.terminal-bar');
    await bar.locator('[data-status="connected"]').waitFor();

    const down = daemon.close();
    await page.getByText(/The connection closed/).waitFor({ timeout: 30_000 });
    // Under the toast, the badge speaks of the terminal's connection, not of the agent's last known state.
    assert.equal(await bar.locator('[data-status="connected"]').count(), 0);
    await bar.getByText('connection closed').waitFor();
    // It is what the page knows now, so it is not marked stale like the rest.
    assert.equal(
      await page.evaluate<string>(
        `getComputedStyle(document.querySelector('.terminal-bar [data-status="disconnected"]'), '::after').content`,
      ),
      'none',
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'terminal-closed-1280.png') });
    await down;

    await startAgain({ allowWorkspaceRenames: 'true' });
    await page.locator('.terminal-host[data-connection="connected"]').waitFor({ timeout: 60_000 });
    await bar.locator('[data-status="connected"]').waitFor();
    assert.equal(await page.getByText(/The connection closed/).count(), 0);
    assert.equal(await host.count(), 1);
    assert.deepEqual(pageErrors, []);
  });
});
