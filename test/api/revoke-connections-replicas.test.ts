import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentHandle } from '../../src/agent/index.js';
import { silentLogger, startDaemon, type Daemon } from '../../src/daemon/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { ManualClock } from '../../src/lib/clock.js';
import { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { NEEDS_POSTGRES } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { closedFor, cutOpenSockets, openSocket, openTerminal, runs } from '../helpers/live-sockets.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const TOKEN = 'agent-token-for-revoked-replicas';

describe('ending access on one replica ends the connections held by another', { skip: NEEDS_POSTGRES }, () => {
  let first: TestDaemon;
  let second: Daemon;
  let secondDir: string;
  let agent: AgentHandle;
  let agentId: string;
  let workspaceId: string;
  let owner: CoveClient;
  let alice: CoveClient;

  before(async () => {
    first = await startTestDaemon({ database: 'postgres', flags: { provisionerDaemons: '1' } });
    const target = first.database.target;
    assert.equal(target.kind, 'postgres');
    secondDir = mkdtempSync(join(tmpdir(), 'cove-revoke-replica-'));
    second = await startDaemon(
      resolveOptions({
        flags: { httpAddress: '127.0.0.1:0', dataDir: secondDir, provisionerDaemons: '0', postgresUrl: target.url },
        env: {},
      }),
      { logger: silentLogger(), clock: new ManualClock(first.clock.now()) },
    );
    owner = await createOwner(first);
    alice = await createMember(first, 'alice');
    // The agent is connected to the second replica only, so the first holds nothing of its streams:
    // only the invalidation between them can end a stream there.
    ({ agent, agentId, workspaceId } = await startAgentWorkspace({
      url: second.url,
      owner,
      member: alice,
      token: TOKEN,
      home: secondDir,
      templateName: 'revoke-replicas',
    }));
  });
  after(async () => {
    cutOpenSockets();
    await agent?.stop();
    // The replica records the agent's leaving; it must not be closed under that write.
    if (agent) await eventually(async () => assert.notEqual((await owner.workspaceAgent(agentId)).status, 'connected'));
    await second?.close();
    await first?.close();
    if (secondDir) rmSync(secondDir, { recursive: true, force: true });
  });

  it("a token deleted through one replica closes its terminal and watch on the other within 1 s; the owner's stay", async () => {
    const aliceOnSecond = new CoveClient({ url: second.url, token: alice.token });
    await eventually(async () => assert.equal((await aliceOnSecond.workspaceAgent(agentId)).status, 'connected'));
    const terminal = await openTerminal(second.url, agentId, alice.token ?? '');
    const watch = await openSocket(second.url, `/workspaces/${workspaceId}/watch-ws`, alice.token ?? '');
    await eventually(() => assert.match(watch.output(), /"type":"data"/));
    const ownersTerminal = await openTerminal(second.url, agentId, owner.token ?? '');

    await alice.deleteApiKey((alice.token ?? '').split('-')[0] ?? '');
    const answeredAt = Date.now();
    await Promise.all([closedFor(terminal, answeredAt, 'the terminal on the other replica'), closedFor(watch, answeredAt, 'the watch')]);
    await runs(ownersTerminal);
  });
});
