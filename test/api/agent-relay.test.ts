import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import { AgentStreamError, openAgentStream } from '../../src/sdk/agent-streams.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { eventually } from '../helpers/eventually.js';

const TOKEN = 'agent-token-for-the-relay';

/** A WebSocket to the web terminal, collecting its output as text. */
async function openTerminal(
  test: TestDaemon,
  client: CoveClient,
  agentId: string,
  reconnect: string,
): Promise<{ socket: WebSocket; output: () => string; closed: Promise<number> }> {
  const socket = new WebSocket(
    `${test.url.replace(/^http/, 'ws')}/api/v2/workspaceagents/${agentId}/pty?reconnect=${reconnect}&width=100&height=30`,
    {
      headers: { 'Service-Session-Token': client.token ?? '' },
    },
  );
  let text = '';
  socket.on('message', (data) => (text += data.toString()));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return { socket, output: () => text, closed };
}

describe('the relay: terminals, streams and questions to a real agent', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let bob: CoveClient;
  let agent: AgentHandle;
  let agentId: string;
  let home: string;
  let server: Server;
  let port: number;

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
    home = await mkdtemp(join(tmpdir(), 'cove-relay-'));
    ({ agent, agentId } = await startAgentWorkspace({
      url: test.url,
      owner,
      member: alice,
      token: TOKEN,
      home,
      templateName: 'relay',
      timing: { statsIntervalMs: 100, ptyIdleTimeoutMs: 1_500 },
    }));
    // A server "inside the workspace": the agent runs on this machine.
    server = createServer((socket) => socket.on('data', (data) => socket.write(`got:${data.toString()}`)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server?.close();
    await agent?.stop();
    await test?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('echoes through the agent and reaches a TCP port inside the workspace', async () => {
    const echo = (await openAgentStream(alice, agentId, { service: 'echo' })).stream;
    const echoed = new Promise<string>((resolve) => echo.once('data', (data: Buffer) => resolve(data.toString())));
    echo.write(Buffer.from('ping-1'));
    assert.equal(await echoed, 'ping-1');
    echo.destroy();

    const { stream } = await openAgentStream(alice, agentId, { port });
    const reply = new Promise<string>((resolve) => stream.once('data', (data: Buffer) => resolve(data.toString())));
    stream.write('hello');
    assert.equal(await reply, 'got:hello');
    // Operators see the stream on the relay's debug page while it is open.
    const page = await (
      await fetch(`${test.url}/api/v2/debug/coordinator`, { headers: { 'Service-Session-Token': owner.token ?? '' } })
    ).text();
    assert.match(page, new RegExp(`alice/dev\\.main</td><td>tcp port ${port}</td>`));
    assert.match(page, /Agents connected to this daemon: 1\. Streams open: 1;/);
    stream.destroy();
  });

  it('carries datagrams to a UDP port inside the workspace, one per message', async () => {
    const udp = createSocket('udp4');
    udp.on('message', (data, from) => udp.send(Buffer.concat([Buffer.from('got:'), data]), from.port, from.address));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    try {
      const { socket } = await openAgentStream(alice, agentId, { port: udp.address().port, network: 'udp' });
      const replies: string[] = [];
      socket.on('message', (data: Buffer) => replies.push(data.toString()));
      socket.send(Buffer.from('a'), { binary: true });
      socket.send(Buffer.from('bc'), { binary: true });
      await eventually(() => assert.deepEqual(replies, ['got:a', 'got:bc']));
      socket.close();
    } finally {
      udp.close();
    }
  });

  it('says why a port cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const unused = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await openAgentStream(alice, agentId, { port: unused }).then(
      () => assert.fail('the stream opened'),
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof AgentStreamError);
    assert.equal(error.code, 4502);
    assert.match(error.message, new RegExp(`port ${unused}`));
  });

  it('runs a reconnecting web terminal that replays its output', async () => {
    const reconnect = randomUUID();
    const first = await openTerminal(test, alice, agentId, reconnect);
    first.socket.send(JSON.stringify({ data: 'echo relay-$((40+2))\r' }));
    await eventually(async () => assert.match(first.output(), /relay-42/));
    first.socket.close();
    await first.closed;

    const again = await openTerminal(test, alice, agentId, reconnect);
    await eventually(async () => assert.match(again.output(), /relay-42/), 5_000);
    // The agent reports the attached terminal, and the bytes it carried, in its stats.
    await eventually(async () => {
      const stats = await owner.deploymentStats();
      assert.equal(stats.session_count.reconnecting_pty, 1);
      assert.ok(stats.workspaces.rx_bytes > 0 && stats.workspaces.tx_bytes > 0, JSON.stringify(stats.workspaces));
    });
    // Several objects in one message, and a resize, are taken as the reference's clients send them.
    again.socket.send(`${JSON.stringify({ height: 40, width: 120 })}${JSON.stringify({ data: 'stty size\r' })}`);
    await eventually(async () => assert.match(again.output(), /40 120/));
    again.socket.send(JSON.stringify({ data: 'exit\r' }));
    assert.equal(await again.closed, 1000);
    await eventually(async () => assert.equal((await alice.workspaceAgent(agentId)).status, 'connected'));
  });

  it('ends a terminal nobody attaches to after the idle timeout', async () => {
    const reconnect = randomUUID();
    const first = await openTerminal(test, alice, agentId, reconnect);
    first.socket.send(JSON.stringify({ data: 'echo idle-$((1+1))\r' }));
    await eventually(async () => assert.match(first.output(), /idle-2/));
    first.socket.close();
    await first.closed;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // Past the timeout the id starts a new shell: nothing of the old output is replayed.
    const later = await openTerminal(test, alice, agentId, reconnect);
    later.socket.send(JSON.stringify({ data: 'echo fresh\r' }));
    await eventually(async () => assert.match(later.output(), /fresh/));
    assert.doesNotMatch(later.output(), /idle-2/);
    later.socket.close();
  });

  it('refuses what it should, with the reason', async () => {
    await expectApiError(bob.openSocket(`/workspaceagents/${agentId}/coordinate`, { service: 'echo' }), 404);
    await expectApiError(alice.openSocket(`/workspaceagents/${agentId}/pty`), 400);
    await expectApiError(alice.openSocket(`/workspaceagents/${agentId}/pty`, { reconnect: 'not-a-uuid' }), 400);
    await expectApiError(alice.openSocket(`/workspaceagents/${agentId}/coordinate`), 400, /exactly one of/);
    await expectApiError(alice.openSocket(`/workspaceagents/${agentId}/coordinate`, { service: 'echo', port: 80 }), 400, /exactly one of/);
    await expectApiError(alice.openSocket(`/workspaceagents/${agentId}/coordinate`, { service: 'echo', version: '2.0' }), 400, /version/);
    await expectApiError(
      alice.openSocket(`/workspaceagents/${agentId}/coordinate`, { service: 'echo', network: 'udp' }),
      400,
      /goes with a port/,
    );
    await expectApiError(alice.openSocket(`/workspaceagents/${agentId}/coordinate`, { port: 53, network: 'sctp' }), 400);
    await expectApiError(alice.openSocket('/tailnet', { service: 'echo' }), 400, /agent/);
    // A page elsewhere cannot use the browser's session cookie to open a terminal.
    const foreign = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`${test.url.replace(/^http/, 'ws')}/api/v2/workspaceagents/${agentId}/pty?reconnect=${randomUUID()}`, {
        headers: { cookie: `service_session_token=${alice.token ?? ''}`, origin: 'https://evil.example' },
      });
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('open', () => resolve(101));
      socket.on('error', () => undefined);
    });
    assert.equal(foreign, 403);
    const sameSite = new WebSocket(`${test.url.replace(/^http/, 'ws')}/api/v2/workspaceagents/${agentId}/coordinate?service=echo`, {
      headers: { cookie: `service_session_token=${alice.token ?? ''}`, origin: test.url },
    });
    await new Promise((resolve, reject) => sameSite.once('open', resolve).once('error', reject));
    sameSite.close();
    const viaTailnet = await alice.openSocket('/tailnet', { service: 'echo', agent: agentId });
    viaTailnet.resume();
    viaTailnet.close();
  });

  it('tells clients about the relay', async () => {
    const info = await alice.request<{
      derp_force_websockets: boolean;
      disable_direct_connections: boolean;
      derp_map: { regions: Record<string, { embeddedRelay: boolean }> };
    }>('GET', `/workspaceagents/${agentId}/connection`);
    assert.equal(info.derp_force_websockets, true);
    assert.equal(info.disable_direct_connections, true);
    assert.equal(info.derp_map.regions['999']?.embeddedRelay, true);
    const socket = await alice.openSocket('/derp-map');
    const map = await new Promise<string>((resolve) => {
      socket.once('message', (data) => resolve(data.toString()));
      socket.resume();
    });
    assert.deepEqual(JSON.parse(map), info.derp_map);
    socket.close();
    await expectApiError(bob.request('GET', `/workspaceagents/${agentId}/connection`), 404);
  });
});
