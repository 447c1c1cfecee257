import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import { browserMissing, launchChromium, type HeadlessChromium } from '../helpers/chromium.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createMember, createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

/** What a page's WebSocket got before it closed. */
interface SocketReport {
  readonly opened: boolean;
  readonly messages: readonly string[];
  readonly code: number;
}

/**
 * The attack as a visitor meets it, in a real Chromium: she signed in to the dashboard, then
 * opened a page on another port of the same host. That page is the same site (so her SameSite=Lax
 * cookie goes along with what it sends) but another origin, and it tries what a script can: a
 * no-cors fetch and a form post that write, a WebSocket that reads her workspace, and a frame of
 * the CLI sign-in page to click in.
 */
describe('a page on another origin of the same site, in a real browser', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let alice: CoveClient;
  let attacker: Server;
  let browser: HeadlessChromium;
  let page: Page;
  let build = '';
  let evil = '';
  let workspaceId = '';
  let cookieToken = '';

  const sessionKeys = async (): Promise<number> => {
    const user = await alice.user('me');
    const rows = await test.daemon.store.db.selectFrom('api_keys').select('id').where('user_id', '=', user.id).execute();
    return rows.length;
  };

  before(async () => {
    build = mkdtempSync(join(tmpdir(), 'cove-web-origin-'));
    mkdirSync(join(build, 'assets'));
    writeFileSync(join(build, 'index.html'), '<!doctype html><title>dashboard</title><p>dashboard</p>');
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' }, dashboardDirectory: build });
    const owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    const { template } = await createEchoTemplate(owner, 'plain', { apply: { resources: [{ name: 'box', type: 'echo' }] } });
    const workspace = await alice.createWorkspace('me', { name: 'dev', template_id: template.id });
    workspaceId = workspace.id;
    await alice.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);

    // The other site's pages: same host, another port. `/post` posts a form to `to` as soon as it
    // loads, `/frame` frames `src`; on the others the test runs its script in the page.
    attacker = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://attacker');
      const target = escapeAttribute(url.searchParams.get('to') ?? url.searchParams.get('src') ?? '');
      response.setHeader('content-type', 'text/html; charset=utf-8');
      if (url.pathname === '/post') {
        response.end(
          `<!doctype html><title>win a prize</title><form method="post" action="${target}"></form><script>document.forms[0].submit()</script>`,
        );
      } else if (url.pathname === '/frame') {
        response.end(`<!doctype html><title>click the button</title><iframe name="framed" src="${target}"></iframe>`);
      } else {
        response.end('<!doctype html><title>cat pictures</title>');
      }
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    evil = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;

    browser = await launchChromium({ width: 1024, height: 768 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);

    // Alice signs in on the dashboard: the call its sign-in page makes, which sets the session cookie.
    await page.goto(`${test.url}/login`);
    const status = await page.evaluate(
      async ({ email, password }) =>
        (
          await fetch('/api/v2/users/login', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email, password }),
          })
        ).status,
      { email: 'alice@example.com', password: STRONG_PASSWORD },
    );
    assert.equal(status, 201);
    const cookie = (await browser.context.cookies(test.url)).find((entry) => entry.name === 'service_session_token');
    assert.ok(cookie, 'the sign-in set the session cookie');
    cookieToken = cookie.value;
    await page.goto(`${evil}/`);
  });

  after(async () => {
    await browser?.close();
    attacker?.close();
    await test?.close();
    if (build) rmSync(build, { recursive: true, force: true });
  });

  it('cannot make a key with a no-cors fetch, nor with a form post', async () => {
    const before = await sessionKeys();
    const answered = page.waitForResponse((response) => response.url() === `${test.url}/api/v2/users/me/keys`);
    await page.evaluate(async (url) => {
      await fetch(`${url}/api/v2/users/me/keys`, { method: 'POST', mode: 'no-cors', credentials: 'include' });
    }, test.url);
    assert.equal((await answered).status(), 403);
    const minted = page.waitForResponse((response) => response.url() === `${test.url}/cli-auth`);
    await page.goto(`${evil}/post?to=${encodeURIComponent(`${test.url}/cli-auth`)}`);
    assert.equal((await minted).status(), 403);
    await page.goto(`${evil}/`);
    assert.equal(await sessionKeys(), before, 'no key was made for the visitor');
  });

  it('cannot watch her workspace: the socket closes without a message', async () => {
    const report = await page.evaluate(
      (url) =>
        new Promise<SocketReport>((resolve) => {
          const socket = new WebSocket(url);
          const messages: string[] = [];
          let opened = false;
          socket.onopen = () => (opened = true);
          socket.onmessage = (event) => {
            messages.push(String(event.data));
            socket.close();
          };
          socket.onclose = (event) => resolve({ opened, messages, code: event.code });
        }),
      `${test.url.replace(/^http/, 'ws')}/api/v2/workspaces/${workspaceId}/watch-ws`,
    );
    assert.deepEqual(report, { opened: false, messages: [], code: 1006 });
  });

  it('cannot show /cli-auth in a frame', async () => {
    const loaded = page.waitForResponse((response) => response.url() === `${test.url}/cli-auth`);
    const refused = page.waitForEvent('console', (message) => /frame-ancestors|X-Frame-Options/i.test(message.text()));
    await page.goto(`${evil}/frame?src=${encodeURIComponent(`${test.url}/cli-auth`)}`);
    const response = await loaded;
    assert.equal(response.headers()['x-frame-options'], 'DENY');
    assert.match(response.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    assert.match((await refused).text(), /blocked/, 'the browser refused to show the frame');
    const framed = page.frame({ name: 'framed' });
    const shown = framed ? await framed.content().catch(() => '') : '';
    assert.doesNotMatch(shown, /Create a session token|Sign in for the Cove CLI/, 'the frame shows nothing of the page');
  });

  it("still lets the dashboard's own pages write, and the CLI page's button mint a token", async () => {
    const before = await sessionKeys();
    await page.goto(`${test.url}/workspaces`);
    const status = await page.evaluate(async () => (await fetch('/api/v2/users/me/keys', { method: 'POST' })).status);
    assert.equal(status, 201);
    await page.goto(`${test.url}/cli-auth`);
    await page.getByRole('button', { name: /Create a session token/ }).click();
    await page.locator('#token').waitFor();
    assert.match((await page.locator('#token').textContent()) ?? '', /^[0-9A-Za-z]{10}-[0-9A-Za-z]{22}$/);
    assert.equal(await sessionKeys(), before + 2);
    // A WebSocket from the dashboard's origin opens and speaks.
    const report = await page.evaluate(
      (url) =>
        new Promise<SocketReport>((resolve) => {
          const socket = new WebSocket(url);
          const messages: string[] = [];
          let opened = false;
          socket.onopen = () => (opened = true);
          socket.onmessage = (event) => {
            messages.push(String(event.data));
            socket.close();
          };
          socket.onclose = (event) => resolve({ opened, messages, code: event.code });
        }),
      `${test.url.replace(/^http/, 'ws')}/api/v2/workspaces/${workspaceId}/watch-ws`,
    );
    assert.equal(report.opened, true);
    assert.match(report.messages[0] ?? '', new RegExp(workspaceId));
  });

  it('cannot sign her out with a form post (last: on a daemon that let it, she would be signed out)', async () => {
    const answered = page.waitForResponse((response) => response.url() === `${test.url}/api/v2/users/logout`);
    await page.goto(`${evil}/post?to=${encodeURIComponent(`${test.url}/api/v2/users/logout`)}`);
    assert.equal((await answered).status(), 403);
    await page.goto(`${evil}/`);
    assert.equal((await alice.withToken(cookieToken).user('me')).username, 'alice', 'her session still works');
  });
});

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
