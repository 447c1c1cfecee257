import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { firstMessage, openSocket, sendRaw, sessionCookie, type SocketOutcome } from '../helpers/cross-origin-requests.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const AGENT_TOKEN = 'agent-token-for-cross-origin-sockets';

/**
 * Every WebSocket the session cookie authenticates (watching a workspace, following its build,
 * a terminal, a provisioner daemon, a path app's own socket) must be opened by a page of the
 * deployment: a page elsewhere on the same site would otherwise read and type as its visitor.
 */
describe('cookie-authenticated WebSockets from other origins', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let agent: AgentHandle;
  let home: string;
  let apps: WebSocketServer;
  let workspaceId = '';
  let buildId = '';
  let agentId = '';
  let other = '';
  let appHost = '';

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', wildcardAccessUrl: '*.apps.test' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    home = await mkdtemp(join(tmpdir(), 'cove-cross-origin-'));
    ({ agent, agentId, workspaceId } = await startAgentWorkspace({
      url: test.url,
      owner,
      member: alice,
      token: AGENT_TOKEN,
      home,
      templateName: 'cross-origin',
      // The terminals opened here are left to end on their own, soon, rather than kept for a reconnect.
      timing: { ptyIdleTimeoutMs: 500 },
    }));
    buildId = (await alice.workspace(workspaceId)).latest_build.id;
    // An app inside the workspace that speaks WebSocket (the agent runs on this machine).
    apps = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    apps.on('connection', (socket) => socket.send('hello from the app'));
    await new Promise<void>((resolve) => apps.once('listening', resolve));
    const url = new URL(test.url);
    other = `http://${url.hostname}:${Number(url.port) === 65535 ? 1 : Number(url.port) + 1}`;
    appHost = `http://8080--main--dev--alice.apps.test:${url.port}`;
  });
  after(async () => {
    apps?.close();
    await agent?.stop();
    await test?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const foreignSources = (): Record<string, Record<string, string>> => ({
    'a foreign Origin': { origin: other },
    'Origin: null': { origin: 'null' },
    "an app subdomain's Origin": { origin: appHost },
    'a foreign Referer alone': { referer: `${other}/attack.html` },
    'Sec-Fetch-Site: cross-site alone': { 'sec-fetch-site': 'cross-site' },
  });

  const assertRefused = (outcome: SocketOutcome, what: string): void => {
    assert.equal(outcome.status, 403, `${what}: ${JSON.stringify(outcome.body)}`);
    assert.match(String(outcome.body?.['message']), /another origin/, what);
    assert.ok(String(outcome.body?.['detail']).includes(test.url), `${what}: the detail names ${test.url}`);
  };

  /** The socket paths, each with what the owner of the cookie may open. */
  const sockets = (): Record<string, { path: string; token: () => string }> => ({
    'the workspace watch': { path: `/api/v2/workspaces/${workspaceId}/watch-ws`, token: () => alice.token ?? '' },
    'the build log follow': { path: `/api/v2/workspacebuilds/${buildId}/logs?follow=true`, token: () => alice.token ?? '' },
    'the terminal': {
      path: `/api/v2/workspaceagents/${agentId}/pty?reconnect=${randomUUID()}&width=80&height=24`,
      token: () => alice.token ?? '',
    },
    'a provisioner daemon': {
      path: `/api/v2/organizations/default/provisionerdaemons/serve?id=${randomUUID()}&provisioner=echo`,
      token: () => alice.token ?? '',
    },
    "the health report's echo": { path: '/api/v2/debug/ws', token: () => owner.token ?? '' },
  });

  for (const name of ['the workspace watch', 'the build log follow', 'the terminal', 'a provisioner daemon', "the health report's echo"]) {
    it(`refuses ${name} opened with the cookie from another origin`, async () => {
      const socket = sockets()[name];
      assert.ok(socket);
      for (const [what, source] of Object.entries(foreignSources())) {
        assertRefused(await openSocket(test.url, socket.path, { ...sessionCookie(socket.token()), ...source }), `${name}, ${what}`);
      }
    });
  }

  it("counts no app subdomain as the deployment: a terminal opened from one's page is refused", async () => {
    const terminal = sockets()['the terminal'];
    assert.ok(terminal);
    const outcome = await openSocket(test.url, terminal.path, { ...sessionCookie(alice.token ?? ''), origin: appHost });
    assert.equal(outcome.status, 403, JSON.stringify(outcome.body));
  });

  it('opens them from the access URL, and for header-token clients from anywhere', async () => {
    for (const name of Object.keys(sockets())) {
      // Each attempt its own path: two terminals must not share a reconnect id.
      const open = (headers: Record<string, string>) => {
        const socket = sockets()[name];
        assert.ok(socket);
        // A terminal is waited for until it speaks, so that none is still starting when the agent stops.
        const speaks = name === 'the terminal' ? async (opened: WebSocket) => void (await firstMessage(opened)) : undefined;
        return openSocket(test.url, socket.path, headers, speaks);
      };
      const token = sockets()[name]?.token() ?? '';
      const own = await open({ ...sessionCookie(token), origin: test.url });
      assert.equal(own.status, 101, `${name} from the access URL: ${JSON.stringify(own.body)}`);
      const header = await open({ 'service-session-token': token, origin: other });
      assert.equal(header.status, 101, `${name} with the header token: ${JSON.stringify(header.body)}`);
    }
    // And the watch says something: the workspace as it is.
    let said = '';
    await openSocket(
      test.url,
      `/api/v2/workspaces/${workspaceId}/watch-ws`,
      { ...sessionCookie(alice.token ?? ''), origin: test.url },
      async (socket) => {
        said = await firstMessage(socket);
      },
    );
    assert.match(said, new RegExp(workspaceId));
  });

  it("refuses a path app's WebSocket opened with the cookie from another origin, and carries it from the deployment's", async () => {
    const port = (apps.address() as AddressInfo).port;
    const path = `/@alice/dev.main/apps/${port}/socket`;
    for (const [what, source] of Object.entries(foreignSources())) {
      assertRefused(await openSocket(test.url, path, { ...sessionCookie(alice.token ?? ''), ...source }), `path app, ${what}`);
    }
    let said = '';
    const own = await openSocket(test.url, path, { ...sessionCookie(alice.token ?? ''), origin: test.url }, async (socket) => {
      said = await firstMessage(socket);
    });
    assert.equal(own.status, 101, JSON.stringify(own.body));
    assert.equal(said, 'hello from the app');
    // A page load of the app is a navigation, the app's business: its answer is its own, headers too.
    const page = await sendRaw(test.url, 'GET', path, { host: new URL(test.url).host, origin: other, ...sessionCookie(alice.token ?? '') });
    assert.equal(page.status, 426, `the app's own answer to a plain request: ${page.text}`);
    assert.equal(page.headers['x-frame-options'], undefined, 'the daemon adds no framing rule to an app answer');
    assert.equal(page.headers['content-security-policy'], undefined);
  });
});
