import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WebSocket, WebSocketServer } from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import { COVE_COOKIES, setsCoveCookie } from '../../src/api/apps/app-answer-headers.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

// An app answers with cookies of the dashboard's names: to plant a session of its author's choosing
// on the visitor, or to sign them out. None may reach the browser, by path or on a subdomain (whose
// `Domain=` could reach the dashboard); the app's own cookies pass.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** What the app tries to set, its own cookies last. */
const HOSTILE_COOKIES = [
  'service_session_token=evil-0123456789-abcdefghijklmnopqrstuv; Path=/',
  'service_session_token=; Path=/; Max-Age=0',
  'service_session_token=evil; Domain=apps.test; Path=/; HttpOnly',
  ' Service_Session_Token = evil; Path=/',
  '=service_session_token=evil; Path=/',
  'cove_subdomain_app_session_token=evil; Path=/',
  'cove_subdomain_app_session_token=evil; Domain=apps.test; Path=/',
  'cove_oauth_convert_jwt=evil; Path=/',
  'cove_sign_in_state=evil; Path=/',
];
const OWN_COOKIES = ['app_cookie=mine; Path=/', 'app_pref=dark; Domain=apps.test; Path=/', 'service_session_token_of_the_app=fine'];

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

function send(base: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

/** The `Set-Cookie` headers of a WebSocket upgrade's 101. */
function upgradeCookies(url: string, headers: Record<string, string>): Promise<string[]> {
  const socket = new WebSocket(url, { headers });
  return new Promise<string[]>((resolve, reject) => {
    socket.once('upgrade', (response) => resolve(response.headers['set-cookie'] ?? []));
    socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade answered ${response.statusCode}`)));
    socket.once('error', reject);
  }).finally(() => socket.terminate());
}

describe('app answers cannot set or clear the dashboard’s cookies', () => {
  let test: TestDaemon;
  let alice: CoveClient;
  let agent: AgentHandle | undefined;
  let server: Server;
  let home = '';
  const subdomainHost = 'evil--main--dev--alice.apps.test';
  const aliceHeaders = () => ({ 'service-session-token': alice.token ?? '' });

  before(async () => {
    server = createServer((request, response) => {
      response.setHeader('set-cookie', [...HOSTILE_COOKIES, ...OWN_COOKIES]);
      response.setHeader('clear-site-data', request.url === '/everything' ? '"*"' : '"cookies", "cache"');
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ cookie: request.headers.cookie ?? '' }));
    });
    const sockets = new WebSocketServer({ server });
    sockets.on('headers', (headers) => headers.push('Set-Cookie: service_session_token=evil; Path=/', 'Set-Cookie: app_ws=1; Path=/'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;

    test = await startTestDaemon({ flags: { provisionerDaemons: '1', wildcardAccessUrl: '*.apps.test' } });
    const owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    home = await mkdtemp(join(tmpdir(), 'cove-app-cookies-'));
    ({ agent } = await startAgentWorkspace({
      url: test.url,
      owner,
      member: alice,
      token: 'agent-token-for-app-cookies',
      home,
      templateName: 'cookies',
      agent: { apps: [{ slug: 'evil', url: `http://localhost:${port}/`, share: 'owner' }] },
    }));
  });
  after(async () => {
    await agent?.stop();
    await test?.close();
    server?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('strips them from a path app’s answer, with any Clear-Site-Data', async () => {
    const answer = await send(test.url, '/@alice/dev.main/apps/evil/', aliceHeaders());
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.headers['set-cookie'], OWN_COOKIES);
    assert.equal(answer.headers['clear-site-data'], undefined, "the origin's storage is the dashboard's");
  });

  it('strips them from a subdomain app’s answer, and Clear-Site-Data clears no cookies', async () => {
    const answer = await send(test.url, '/', { ...aliceHeaders(), host: subdomainHost });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.headers['set-cookie'], OWN_COOKIES);
    assert.equal(answer.headers['clear-site-data'], '"cache"');
    const everything = await send(test.url, '/everything', { ...aliceHeaders(), host: subdomainHost });
    assert.equal(everything.headers['clear-site-data'], undefined);
  });

  it('strips them from WebSocket upgrades', async () => {
    const ws = test.url.replace(/^http/, 'ws');
    assert.deepEqual(await upgradeCookies(`${ws}/@alice/dev.main/apps/evil/`, aliceHeaders()), ['app_ws=1; Path=/']);
    assert.deepEqual(await upgradeCookies(`${ws}/`, { ...aliceHeaders(), host: subdomainHost }), ['app_ws=1; Path=/']);
  });

  it('never sends the app any of the dashboard’s cookies', async () => {
    const cookie = COVE_COOKIES.map((name) => `${name}=secret-${name}`).join('; ');
    const answer = await send(test.url, '/@alice/dev.main/apps/evil/', { ...aliceHeaders(), cookie: `mine=1; ${cookie}; theirs=2` });
    assert.equal((JSON.parse(answer.body) as { cookie: string }).cookie, 'mine=1; theirs=2');
  });

  it('reads cookie names as browsers do', () => {
    for (const line of HOSTILE_COOKIES) assert.ok(setsCoveCookie(line), line);
    assert.ok(setsCoveCookie('service_session_token'), 'a name-less cookie with the name as its value');
    for (const line of OWN_COOKIES) assert.ok(!setsCoveCookie(line), line);
  });
});

describe('the list of the daemon’s cookies', () => {
  it('names every cookie the daemon declares', async () => {
    const declared = new Set<string>();
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (/\.tsx?$/.test(entry.name)) {
          for (const match of (await readFile(path, 'utf8')).matchAll(/const \w*COOKIE\w*\s*=\s*'([^']+)'/g)) declared.add(match[1] ?? '');
        }
      }
    };
    await walk(join(ROOT, 'src'));
    assert.ok(declared.has('service_session_token'), 'the scan finds the session cookie');
    for (const name of declared) assert.ok(COVE_COOKIES.includes(name), `${name} is set by the daemon but an app may set it too`);
  });
});
