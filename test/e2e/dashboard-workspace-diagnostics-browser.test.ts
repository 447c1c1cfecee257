import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace, type AgentWorkspace } from '../helpers/agent-workspace.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { seriousAxeViolations } from '../helpers/axe-check.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard/workspace');
const AGENT_TOKEN = 'a2f1c3d4-0000-4000-8000-00000000c0de';
/** The startup script prints one line, waits, then another: the page must show the second as it comes. */
const STARTUP_SCRIPT = 'echo first-startup-marker; sleep 4; echo late-startup-marker';
/** Stops fail, with a debug line among their log that only a debug build keeps. */
const FAILING_STOP = {
  apply: {
    resources: [{ name: 'box', type: 'echo' }],
    logs: ['apply-marker'],
    stop: { error: 'the stop failed on purpose', logs: [{ level: 'debug', output: 'debug-marker' }, 'stop-marker'] },
  },
};
/** Stops never end on their own: the one provisioner stays busy, and builds after it wait in the queue. */
const HANGING_STOP = { apply: { resources: [{ name: 'box', type: 'echo' }], stop: { hang: true } } };

// The workspace page's diagnostics, in a real Chromium against a daemon serving the checkout's built
// dashboard (`node scripts/build.mjs`), with a real agent where there is one: what the page shows
// is compared with what the API says, and what it does is read back through the API.
describe('the workspace page explains its workspace and its builds', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  const home = mkdtempSync(join(tmpdir(), 'cove-e2e-wsdiag-'));
  let test: TestDaemon;
  let owner: CoveClient;
  let browser: HeadlessChromium;
  let page: Page;
  let listener: Server;
  let listenerPort = 0;
  let withAgent: AgentWorkspace | undefined;
  const pageErrors: string[] = [];

  const screenshot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const workspaceNamed = (name: string) => owner.workspaceByOwnerAndName('owner', name);

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    await mkdir(SCREENSHOTS, { recursive: true });
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    listener = createServer((_request, response) => response.end('listening'));
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    listenerPort = (listener.address() as AddressInfo).port;
    browser = await launchChromium({ width: 1280, height: 900 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
  });

  after(async () => {
    await withAgent?.agent.stop();
    await browser?.close();
    listener?.close();
    await test?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('shows the startup log live, the workspace as starting until its agent is ready, then the ports it listens on', async () => {
    const starting = startAgentWorkspace({
      url: test.url,
      owner,
      member: owner,
      token: AGENT_TOKEN,
      home,
      agent: { scripts: [{ display_name: 'Setup', script: STARTUP_SCRIPT, run_on_start: true }] },
    });
    const created = await eventually(() => workspaceNamed('dev'), 60_000, 100);
    await page.goto(`${test.url}/@owner/dev`);
    const logs = page.locator('[data-agent-logs="main"]');
    await logs.getByText('first-startup-marker').waitFor();
    // The build is over and its agent still runs its script: the header says starting, as the agent does.
    const header = page.locator('h1 .badge');
    const seen = await owner.workspace(created.id);
    if (seen.latest_build.resources[0]?.agents[0]?.lifecycle_state === 'starting') {
      assert.equal(seen.latest_build.status, 'running');
      assert.equal(await header.getAttribute('data-status'), 'starting');
      assert.equal(await page.locator('.history li').first().locator('.badge').getAttribute('data-status'), 'starting');
    }
    assert.notEqual(await logs.getAttribute('open'), null, 'the log is open while the agent starts');
    await screenshot('startup-log-starting');
    await logs.getByText('late-startup-marker').waitFor();
    withAgent = await starting;
    await page.locator('h1 .badge[data-status="running"]').waitFor();
    await page.locator('[data-agent="main"] .agent-head [data-status="ready"]').waitFor();
    await logs.getByText('2 lines').waitFor();
    const stored = await owner.workspaceAgentLogs(withAgent.agentId);
    assert.ok(
      stored.some((line) => line.output === 'late-startup-marker'),
      'the line the page showed is the agent log the API has',
    );

    // The ports card lists what the machine listens on, this test's server among them.
    const port = page.locator(`[data-listening-port="${listenerPort}"]`);
    await port.waitFor();
    await page.getByRole('button', { name: `Share port ${listenerPort}` }).click();
    await page.locator(`[data-shared-port="${listenerPort}"]`).waitFor();
    const shares = (await owner.portShares(withAgent.workspaceId)).shares;
    assert.deepEqual(
      shares.map((share) => [share.agent_name, share.port, share.share_level]),
      [['main', listenerPort, 'authenticated']],
    );
    await screenshot('ports-shared');
  });

  it('charts the latest build timings with a row per stage the API reports', async () => {
    assert.ok(withAgent, 'the agent workspace runs');
    const workspace = await owner.workspace(withAgent.workspaceId);
    const timings = await owner.workspaceBuildTimings(workspace.latest_build.id);
    const expected = new Set([
      ...timings.provisioner_timings.map((timing) => timing.stage),
      ...timings.agent_connection_timings.map((timing) => timing.stage),
      ...timings.agent_script_timings.map((timing) => timing.stage),
    ]);
    assert.ok(expected.has('start') && expected.has('connect'), `the agent's stages are timed (${[...expected].join(', ')})`);
    await page.reload();
    const table = page.getByRole('table', { name: 'Build timings by stage' });
    await eventually(
      async () => {
        const rows = await table.locator('tr[data-timing-stage]').all();
        const stages = await Promise.all(rows.map((row) => row.getAttribute('data-timing-stage')));
        assert.deepEqual(new Set(stages), expected);
      },
      30_000,
      200,
    );
    await table.getByRole('rowheader', { name: 'main: Setup' }).waitFor();
    await screenshot('timings');
  });

  it('opens a build by its number from the history, with its log, timings and parameters', async () => {
    await page.goto(`${test.url}/@owner/dev`);
    await page.locator('.history').getByRole('link', { name: '#1', exact: true }).click();
    await page.waitForURL(`${test.url}/@owner/dev/builds/1`);
    await page.getByRole('heading', { level: 1, name: /Build #1: start/ }).waitFor();
    const build = await owner.workspaceBuildByNumber('owner', 'dev', 1);
    const lines = (await owner.workspaceBuildLogs(build.id)).map((log) => log.output).filter((output) => output.trim() !== '');
    assert.ok(lines.length > 0, 'the build has a log');
    await page.getByRole('region', { name: 'Log of build #1' }).getByText(lines.at(-1)!).first().waitFor();
    await page.getByRole('table', { name: 'Build timings by stage' }).waitFor();
    await page.getByText('This build used no parameters.').waitFor();
    await screenshot('build-page');
  });

  it('passes axe-core with the startup log open, the ports and the timings drawn, in light and dark', async () => {
    const found: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      await owner.updateUserAppearance({ theme_preference: theme });
      for (const path of ['/@owner/dev', '/@owner/dev/builds/1']) {
        await page.goto(`${test.url}${path}`);
        await page.getByRole('table', { name: 'Build timings by stage' }).waitFor();
        if (path === '/@owner/dev') {
          await page.locator('[data-agent-logs="main"] summary').click();
          await page.locator('[data-agent-logs="main"]').getByText('late-startup-marker').waitFor();
          await page.locator(`[data-listening-port="${listenerPort}"]`).waitFor();
        }
        await page.locator('.loading').first().waitFor({ state: 'detached' });
        for (const violation of await seriousAxeViolations(page)) found.push(`${theme} ${path}: ${violation}`);
        await screenshot(`axe-${theme}-${path === '/@owner/dev' ? 'workspace' : 'build'}`);
      }
    }
    await owner.updateUserAppearance({ theme_preference: 'light' });
    assert.deepEqual(found, []);
  });

  it('retries a failed build with debug logs: the new build keeps the debug lines', async () => {
    const { template } = await createEchoTemplate(owner, 'failing-stop', FAILING_STOP);
    const created = await owner.createWorkspace('me', { name: 'flaky', template_id: template.id });
    await owner.followWorkspaceBuildLogs(created.latest_build.id, () => undefined);
    const stop = await owner.createWorkspaceBuild(created.id, { transition: 'stop' });
    await owner.followWorkspaceBuildLogs(stop.id, () => undefined);
    assert.equal((await owner.workspaceBuild(stop.id)).status, 'failed');
    const plainLogs = await owner.workspaceBuildLogs(stop.id);
    assert.ok(!plainLogs.some((log) => log.output === 'debug-marker'), 'a plain build drops the debug line');

    await page.goto(`${test.url}/@owner/flaky`);
    await page.getByText('the stop failed on purpose').first().waitFor();
    await screenshot('failed-build');
    await page.getByRole('button', { name: 'Retry with debug logs' }).click();
    const retried = await eventually(() => owner.workspaceBuildByNumber('owner', 'flaky', 3), 30_000, 100);
    assert.equal(retried.transition, 'stop');
    await owner.followWorkspaceBuildLogs(retried.id, () => undefined);
    const debugLine = (await owner.workspaceBuildLogs(retried.id)).find((log) => log.output === 'debug-marker');
    assert.equal(debugLine?.log_level, 'debug', 'the retried build asked for, and kept, debug lines');
    // The page of the retried build shows that line too.
    await page.goto(`${test.url}/@owner/flaky/builds/3`);
    await page.getByRole('region', { name: 'Log of build #3' }).getByText('debug-marker').waitFor();
  });

  it('cancels a queued build, estimates a build from past ones, and clears "Starting." once it ran', async () => {
    const { template } = await createEchoTemplate(owner, 'hanging-stop', HANGING_STOP);
    const holder = await owner.createWorkspace('me', { name: 'holder', template_id: template.id });
    await owner.followWorkspaceBuildLogs(holder.latest_build.id, () => undefined);
    const queued = await owner.createWorkspace('me', { name: 'queued', template_id: template.id });
    await owner.followWorkspaceBuildLogs(queued.latest_build.id, () => undefined);
    // The holder's stop hangs on the only provisioner; the queued workspace's stop waits behind it.
    const hanging = await owner.createWorkspaceBuild(holder.id, { transition: 'stop' });
    await eventually(async () => assert.equal((await owner.workspaceBuild(hanging.id)).job.status, 'running'), 30_000, 100);
    const waiting = await owner.createWorkspaceBuild(queued.id, { transition: 'stop' });

    await page.goto(`${test.url}/@owner/queued`);
    await page.locator('[data-estimate]').waitFor();
    await page.getByRole('button', { name: 'Cancel build' }).click();
    await eventually(async () => assert.equal((await owner.workspaceBuild(waiting.id)).job.status, 'canceled'), 30_000, 100);
    await page.locator('h1 .badge[data-status="canceled"]').waitFor();

    // Started again, the build waits behind the holder: the template's past starts give an estimate.
    assert.equal(typeof (await owner.template(template.id)).build_time_stats['start']?.P50, 'number', 'the template has timed starts');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.locator('[data-estimate="stats"] progress').waitFor();
    await page.getByText('Starting.').waitFor();
    await screenshot('estimate-while-queued');
    await owner.cancelWorkspaceBuild(hanging.id);
    await page.locator('h1 .badge[data-status="running"]').waitFor();
    await page.getByText('Starting.').waitFor({ state: 'detached' });
    assert.equal((await workspaceNamed('queued')).latest_build.status, 'running');
    assert.deepEqual(pageErrors, []);
  });
});
