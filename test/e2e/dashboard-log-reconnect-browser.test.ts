import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template } from '../../src/sdk/wire/index.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { REPOSITORY_ROOT } from '../helpers/repository-root.js';
import { createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const SCREENSHOTS = join(REPOSITORY_ROOT, 'test-output/dashboard/log-reconnect');
/** A build whose apply prints a line every 400 ms, so that its log is still growing when the stream drops. */
const LINES = Array.from({ length: 8 }, (_, n) => `slow-line-${n}`);
const SLOW_APPLY = { apply: { logs: LINES.map((output) => ({ output, delay_ms: 400 })) } };

// The build log on the workspace page when its stream drops mid-build (a server going away, a
// network cut): the page follows again from the last line it showed, and every line of the build
// is there once. The drop is made between the page and the daemon, on the page's own socket.
describe('a build log that drops mid-build follows again', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let template: Template;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    assert.ok(existsSync(join(REPOSITORY_ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    await mkdir(SCREENSHOTS, { recursive: true });
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    ({ template } = await createEchoTemplate(owner, 'slow', SLOW_APPLY));
    browser = await launchChromium({ width: 1280, height: 900 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it('shows every line of the build once, the later ones from a second stream that starts after the last line shown', async () => {
    const opened: string[] = [];
    let dropped = false;
    await page.routeWebSocket(/\/api\/v2\/workspacebuilds\/[^/]+\/logs/, (socket) => {
      opened.push(socket.url());
      const server = socket.connectToServer();
      let forwarded = 0;
      server.onMessage((message) => {
        socket.send(message);
        forwarded += 1;
        // The first stream goes away after three lines, as a restarting server's would.
        if (!dropped && forwarded === 3) {
          dropped = true;
          void socket.close({ code: 1001, reason: 'going away' });
          void server.close();
        }
      });
    });

    const workspace = await owner.createWorkspace('me', { name: 'slow', template_id: template.id });
    await page.goto(`${test.url}/@owner/slow`);
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const log = page.locator('.build-log-body').first();
    for (const line of LINES) await log.getByText(line).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'after-reconnect.png'), fullPage: true });

    assert.ok(dropped, 'the first stream was cut');
    assert.ok(opened.length >= 2, `the page opened the log again (${opened.length} streams)`);
    const again = new URL(opened[1]!);
    assert.match(again.searchParams.get('after') ?? '', /^\d+$/, 'the second stream starts after a line');
    const text = await log.innerText();
    for (const line of LINES) assert.equal(text.split(line).length - 1, 1, `${line} is shown once`);
    assert.equal(
      await page.getByText('Connection lost — reconnecting…').count(),
      0,
      'the connection banner is gone once the stream is back',
    );
    assert.deepEqual(pageErrors, []);
  });
});
