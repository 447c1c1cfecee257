import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { eventually } from '../helpers/eventually.js';
import { WITHIN_MS } from '../helpers/live-sockets.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

const TOKEN = 'agent-token-for-revoked-apps';
const APP_HOST = 'sub--main--dev--alice.apps.test';

/** An app "inside the workspace": WebSockets echo, and `/stream` answers a chunk every 50 ms, without end. */
async function startApp(): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    if (!(request.url ?? '').endsWith('/stream')) return response.end('ok');
    const timer = setInterval(() => response.write('tick\n'), 50);
    response.on('close', () => clearInterval(timer));
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket) => socket.on('message', (data) => socket.send(`echo:${data.toString()}`)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A proxied app connection, with when it ended. */
interface AppConnection {
  readonly ended: Promise<number>;
  readonly cut: () => void;
  readonly alive: () => Promise<void>;
}

/** An app WebSocket through the proxy, answering once before it is handed back. */
async function appSocket(url: string, token: string, host?: string, cookie?: string): Promise<AppConnection> {
  const headers = { ...(token ? { 'Service-Session-Token': token } : {}), ...(host ? { host } : {}), ...(cookie ? { cookie } : {}) };
  const socket = new WebSocket(url, { headers });
  const ended = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  socket.on('error', () => undefined);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
  });
  const alive = async (): Promise<void> => {
    const reply = new Promise<string>((resolve) => socket.once('message', (data) => resolve(data.toString())));
    socket.send('still there?');
    assert.equal(await reply, 'echo:still there?');
  };
  await alive();
  return { ended, cut: () => socket.terminate(), alive };
}

/** A long answer of the app through the proxy, once its first chunk has come. */
async function appStream(base: string, path: string, token: string): Promise<AppConnection> {
  const url = new URL(base);
  let chunks = 0;
  let ended!: (at: number) => void;
  const endedAt = new Promise<number>((resolve) => (ended = resolve));
  const request = httpRequest({ host: url.hostname, port: url.port, path, headers: { 'Service-Session-Token': token } }, (response) => {
    response.on('data', () => chunks++);
    response.on('close', () => ended(Date.now()));
    response.on('error', () => undefined);
  });
  request.on('error', () => ended(Date.now()));
  request.end();
  await eventually(() => assert.ok(chunks > 0, 'the app answers'));
  const alive = async (): Promise<void> => {
    const before = chunks;
    await eventually(() => assert.ok(chunks > before, 'the answer goes on'));
  };
  return { ended: endedAt, cut: () => request.destroy(), alive };
}

async function endedWithin(connection: AppConnection, answeredAt: number, what: string): Promise<void> {
  const at = await Promise.race([
    connection.ended,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5_000).unref()),
  ]);
  assert.ok(at, `${what} is still open 5 s after access ended`);
  assert.ok(at - answeredAt <= WITHIN_MS, `${what} ended ${at - answeredAt} ms after access ended`);
}

describe('ending a session ends the workspace app connections it opened', () => {
  let test: TestDaemon;
  let alice: CoveClient;
  let agent: AgentHandle;
  let home: string;
  let app: { server: Server; port: number };
  const open: AppConnection[] = [];

  before(async () => {
    app = await startApp();
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', wildcardAccessUrl: '*.apps.test' } });
    const owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    home = await mkdtemp(join(tmpdir(), 'cove-revoke-apps-'));
    const apps = [
      { slug: 'web', url: `http://127.0.0.1:${app.port}/`, share: 'owner' },
      { slug: 'sub', url: `http://127.0.0.1:${app.port}/`, share: 'owner', subdomain: true },
    ];
    ({ agent } = await startAgentWorkspace({
      url: test.url,
      owner,
      member: alice,
      token: TOKEN,
      home,
      templateName: 'apps',
      agent: { apps },
    }));
  });
  after(async () => {
    for (const connection of open) connection.cut();
    await agent?.stop();
    await test?.close();
    app?.server.closeAllConnections();
    app?.server.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it("deleting the key ends its path and subdomain app sockets and long answers, not those of alice's other session", async () => {
    const victim = await test.anonymous.login('alice@example.com', STRONG_PASSWORD);
    const ws = test.url.replace(/^http/, 'ws');
    const connections = {
      pathSocket: await appSocket(`${ws}/@alice/dev.main/apps/web/`, victim.session_token),
      subdomainSocket: await appSocket(`${ws}/`, victim.session_token, APP_HOST),
      pathStream: await appStream(test.url, '/@alice/dev.main/apps/web/stream', victim.session_token),
    };
    const other = await appSocket(`${ws}/@alice/dev.main/apps/web/`, alice.token ?? '');
    open.push(...Object.values(connections), other);

    await alice.deleteApiKey(victim.session_token.split('-')[0] ?? '');
    const answeredAt = Date.now();
    await Promise.all(Object.entries(connections).map(([what, connection]) => endedWithin(connection, answeredAt, what)));
    await other.alive();
  });

  it('signing out ends the app host sessions the dashboard session handed out, and their sockets', async () => {
    const victim = await test.anonymous.login('alice@example.com', STRONG_PASSWORD);
    const appCookie = await appHostCookie(test.url, victim.session_token);
    const ws = test.url.replace(/^http/, 'ws');
    const socket = await appSocket(`${ws}/`, '', APP_HOST, appCookie);
    open.push(socket);
    const before = await getOnAppHost(test.url, appCookie);
    assert.equal(before, 200, 'the app host session opens the app');

    await test.anonymous.withToken(victim.session_token).logout();
    const answeredAt = Date.now();
    await endedWithin(socket, answeredAt, 'the app host socket');
    // The app host's cookie is signed out too: a page load is sent to sign in again.
    assert.equal(await getOnAppHost(test.url, appCookie), 307);
  });
});

/** The app host's session cookie, got through the deployment's hand-off as a browser would. */
async function appHostCookie(base: string, token: string): Promise<string> {
  const handOff = await rawGet(base, `/api/v2/applications/auth-redirect?redirect_uri=${encodeURIComponent(`http://${APP_HOST}/`)}`, {
    'Service-Session-Token': token,
  });
  const location = new URL(String(handOff.headers.location));
  const landing = await rawGet(base, `${location.pathname}${location.search}`, { host: APP_HOST });
  const cookie = [landing.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('cove_subdomain_app_session_token='));
  assert.ok(cookie, `the app host sets its session cookie (HTTP ${landing.status})`);
  return cookie.split(';')[0] ?? '';
}

async function getOnAppHost(base: string, cookie: string): Promise<number> {
  return (await rawGet(base, '/', { host: APP_HOST, cookie, 'sec-fetch-mode': 'navigate', accept: 'text/html' })).status;
}

function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    request.on('error', reject);
    request.end();
  });
}
