import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import type { AgentHandle } from '../../src/agent/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { eventually } from '../helpers/eventually.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const PARAM = 'coder_signed_app_token_23db1dde';

/** Opens a socket with no session of its own; resolves with the socket, or the HTTP status it was refused with. */
function dial(url: string): Promise<WebSocket | number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.on('open', () => resolve(socket));
    socket.on('error', () => undefined);
  });
}

describe("the web terminal's signed token: POST /applications/reconnecting-pty-signed-token", () => {
  let test: TestDaemon;
  let alice: CoveClient;
  let bob: CoveClient;
  let agent: AgentHandle;
  let agentId: string;
  let home: string;

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    const owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
    home = await mkdtemp(join(tmpdir(), 'cove-pty-token-'));
    ({ agent, agentId } = await startAgentWorkspace({ url: test.url, owner, member: alice, token: 'agent-token-pty', home }));
  });
  after(async () => {
    await agent?.stop();
    await test?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const ptyUrl = (id: string, query: URLSearchParams) =>
    `${test.url.replace(/^http/, 'ws')}/api/v2/workspaceagents/${id}/pty?${query.toString()}`;

  it("issues a token that opens that agent's terminal without a session, for a minute", async () => {
    const query = new URLSearchParams({ reconnect: randomUUID(), width: '80', height: '24' });
    const { signed_token: token } = await alice.issueReconnectingPtySignedToken({ url: ptyUrl(agentId, query), agentID: agentId });
    assert.ok(token.length > 20);
    // Without the token the socket is refused; with it, it opens as Alice and runs her shell.
    assert.equal(await dial(ptyUrl(agentId, query)), 401);
    query.set(PARAM, token);
    const socket = await dial(ptyUrl(agentId, query));
    assert.ok(socket instanceof WebSocket, `refused with ${String(socket)}`);
    let output = '';
    socket.on('message', (data) => (output += data.toString()));
    socket.send(JSON.stringify({ data: 'echo signed-$((40+2))\r' }));
    await eventually(() => assert.match(output, /signed-42/));
    socket.close();
    // A minute on, the same token opens nothing.
    test.clock.advance(61_000);
    query.set('reconnect', randomUUID());
    assert.equal(await dial(ptyUrl(agentId, query)), 401);
  });

  it('is good for the terminal socket only, and refuses URLs and agents it should not sign', async () => {
    const query = new URLSearchParams({ reconnect: randomUUID() });
    const { signed_token: token } = await alice.issueReconnectingPtySignedToken({ url: ptyUrl(agentId, query), agentID: agentId });
    // The token is no session for the rest of the API.
    const response = await fetch(`${test.url}/api/v2/users/me?${PARAM}=${encodeURIComponent(token)}`);
    assert.equal(response.status, 401);
    // Nor for another agent's terminal.
    const other = randomUUID();
    assert.equal(await dial(ptyUrl(other, new URLSearchParams({ reconnect: randomUUID(), [PARAM]: token }))), 401);

    await expectApiError(alice.issueReconnectingPtySignedToken({ url: ptyUrl(other, query), agentID: agentId }), 400, /path/);
    await expectApiError(
      alice.issueReconnectingPtySignedToken({ url: `wss://elsewhere.example/api/v2/workspaceagents/${agentId}/pty`, agentID: agentId }),
      400,
      /hostname/,
    );
    await expectApiError(alice.issueReconnectingPtySignedToken({ url: 'not a url', agentID: agentId }), 400);
    // Bob may not reach Alice's workspace: the agent does not exist for him.
    await expectApiError(bob.issueReconnectingPtySignedToken({ url: ptyUrl(agentId, query), agentID: agentId }), 404);
  });
});
