import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentHandle } from '../../src/agent/index.js';
import { silentLogger, startDaemon, type Daemon } from '../../src/daemon/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { ManualClock } from '../../src/lib/clock.js';
import { openAgentStream } from '../../src/sdk/agent-streams.js';
import { CoveClient } from '../../src/sdk/client.js';
import { NEEDS_POSTGRES } from '../helpers/databases.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { eventually } from '../helpers/eventually.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const TOKEN = 'agent-token-for-two-replicas';

describe('the relay across replicas sharing one PostgreSQL database', { skip: NEEDS_POSTGRES }, () => {
  let first: TestDaemon;
  let second: Daemon;
  let secondDir: string;
  let agent: AgentHandle;
  let agentId: string;
  let workspaceId: string;
  let server: Server;
  let port: number;
  let aliceOnSecond: CoveClient;

  before(async () => {
    first = await startTestDaemon({ database: 'postgres', flags: { provisionerDaemons: '1' } });
    const target = first.database.target;
    assert.equal(target.kind, 'postgres');
    secondDir = mkdtempSync(join(tmpdir(), 'cove-replica-'));
    second = await startDaemon(
      resolveOptions({
        flags: { httpAddress: '127.0.0.1:0', dataDir: secondDir, provisionerDaemons: '0', postgresUrl: target.url },
        env: {},
      }),
      {
        logger: silentLogger(),
        clock: new ManualClock(first.clock.now()),
      },
    );
    const owner = await createOwner(first);
    const alice = await createMember(first, 'alice');
    aliceOnSecond = new CoveClient({ url: second.url, token: alice.token });
    // The agent connects to the first replica only.
    ({ agent, agentId, workspaceId } = await startAgentWorkspace({
      url: first.url,
      owner,
      member: alice,
      token: TOKEN,
      home: secondDir,
      templateName: 'replicas',
    }));
    await eventually(async () => assert.equal((await aliceOnSecond.workspaceAgent(agentId)).status, 'connected'));
    server = createServer((socket) => socket.on('data', (data) => socket.write(`replica:${data.toString()}`)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server?.close();
    await agent?.stop();
    await second?.close();
    await first?.close();
    if (secondDir) rmSync(secondDir, { recursive: true, force: true });
  });

  it('reaches an agent connected to another replica: streams and questions go through the replica that holds it', async () => {
    const { stream } = await openAgentStream(aliceOnSecond, agentId, { port });
    const reply = new Promise<string>((resolve) => stream.once('data', (data: Buffer) => resolve(data.toString())));
    stream.write('hello');
    assert.equal(await reply, 'replica:hello');
    stream.destroy();

    const ports = await aliceOnSecond.request<{ ports: { port: number }[] }>('GET', `/workspaceagents/${agentId}/listening-ports`);
    assert.ok(
      ports.ports.some((entry) => entry.port === port),
      JSON.stringify(ports),
    );
  });

  it('still refuses what the user may not do, on either replica', async () => {
    const bob = await createMember(first, 'bob');
    const bobOnSecond = new CoveClient({ url: second.url, token: bob.token });
    await assert.rejects(openAgentStream(bobOnSecond, agentId, { service: 'echo' }), /404|not found/i);
  });

  // Last: the new build ends the agent's workspace.
  it("tells a watcher on one replica of a build queued there and run by the other replica's provisioner", async () => {
    const controller = new AbortController();
    const seen: { build: number; status: string }[] = [];
    const watching = aliceOnSecond
      .watchWorkspace(
        workspaceId,
        (w) => seen.push({ build: w.latest_build.build_number, status: w.latest_build.status }),
        controller.signal,
      )
      .catch(() => undefined);
    try {
      await eventually(() => assert.ok(seen.length > 0, 'the watch stream answered'));
      const before = seen[0]?.build ?? 0;
      const started = Date.now();
      // Queued on the second replica, which runs no provisioner: only the first one's can take it.
      const build = await aliceOnSecond.createWorkspaceBuild(workspaceId, { transition: 'stop' });
      assert.equal(build.build_number, before + 1);
      await eventually(() =>
        assert.ok(
          seen.some((s) => s.build === before + 1 && s.status === 'stopped'),
          JSON.stringify(seen),
        ),
      );
      // Without the notifications between them, the job would wait for the provisioner's next poll (5 s).
      assert.ok(Date.now() - started < 4_000, `took ${Date.now() - started} ms`);
    } finally {
      controller.abort();
      await watching;
    }
  });
});
