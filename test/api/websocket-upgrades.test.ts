import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import type { CoveClient } from '../../src/sdk/client.js';

/** Sends `request` on a fresh TCP connection; resolves with all it got back once the daemon closes it. */
function rawExchange(url: string, request: string): Promise<{ readonly text: string; readonly closedByDaemon: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname, () => socket.write(request));
    let text = '';
    // Long enough for an answer; a socket still open after it was left open.
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedByDaemon: false });
    }, 3000);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedByDaemon: true });
    });
  });
}

const upgradeHeaders = (path: string, host: string): string =>
  `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
  `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;

describe('WebSocket upgrades', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('answers an upgrade to a plain route as a plain request, then closes its socket', async () => {
    const host = new URL(test.url).host;
    const { text, closedByDaemon } = await rawExchange(test.url, upgradeHeaders('/api/v2/buildinfo', host));
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.match(text, /"version"/);
    assert.equal(closedByDaemon, true, 'the upgraded socket was left open');
  });

  it('closes the socket of an upgrade a plain route refuses', async () => {
    const host = new URL(test.url).host;
    const { text, closedByDaemon } = await rawExchange(test.url, upgradeHeaders('/api/v2/users/me', host));
    assert.match(text, /^HTTP\/1\.1 401 /);
    assert.equal(closedByDaemon, true, 'the upgraded socket was left open');
  });

  it('still upgrades WebSocket routes, and refuses plain requests to them', async () => {
    // The watch stream of a workspace that does not exist: the upgrade is refused with the API's 404 ...
    const wsUrl = `${test.url.replace(/^http/, 'ws')}/api/v2/workspaces/00000000-0000-4000-8000-000000000000/watch-ws`;
    const refused = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(wsUrl, { headers: { 'Service-Session-Token': owner.token ?? '' } });
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('open', () => reject(new Error('opened')));
      socket.on('error', () => undefined);
    });
    assert.equal(refused, 404);
    // ... a WebSocket route upgrades and speaks ...
    const relayMap = await new Promise<{ regions?: unknown }>((resolve, reject) => {
      const socket = new WebSocket(`${test.url.replace(/^http/, 'ws')}/api/v2/derp-map`, {
        headers: { 'Service-Session-Token': owner.token ?? '' },
      });
      socket.once('message', (data: Buffer) => {
        resolve(JSON.parse(data.toString('utf8')) as { regions?: unknown });
        socket.close();
      });
      socket.once('unexpected-response', (_request, response) => reject(new Error(`answered ${response.statusCode}`)));
      socket.once('error', reject);
    });
    assert.ok(relayMap.regions, 'the relay map has its regions');
    // ... and a WebSocket-only route answers a plain request with 400.
    const derp = await fetch(`${test.url}/api/v2/derp-map`, { headers: { 'Service-Session-Token': owner.token ?? '' } });
    assert.equal(derp.status, 400);
  });
});
