import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { createEchoTemplate } from '../helpers/echo-template.js';

const TOKEN = 'stats-agent-token';

describe('GET /deployment/stats', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('counts workspaces by their latest build and adds up what agents reported', async () => {
    const templateFrom = async (name: string, echo: unknown) => (await createEchoTemplate(owner, name, echo)).template;
    const withAgent = await templateFrom('with-agent', {
      apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: TOKEN }] }] },
    });
    const plain = await templateFrom('plain', {});
    const running = await owner.createWorkspace('me', { name: 'running', template_id: withAgent.id });
    await owner.followWorkspaceBuildLogs(running.latest_build.id, () => undefined);
    const stopped = await owner.createWorkspace('me', { name: 'stopped', template_id: plain.id });
    await owner.followWorkspaceBuildLogs(stopped.latest_build.id, () => undefined);
    await owner.followWorkspaceBuildLogs((await owner.createWorkspaceBuild(stopped.id, { transition: 'stop' })).id, () => undefined);

    const socket = new WebSocket(`${test.url.replace(/^http/, 'ws')}/api/v2/workspaceagents/me/rpc`, {
      headers: { 'Service-Session-Token': TOKEN },
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('message', () => resolve());
      socket.once('error', reject);
    });
    socket.send(
      JSON.stringify({
        type: 'stats',
        rx_bytes: 1200,
        tx_bytes: 3400,
        session_count_ssh: 2,
        session_count_reconnecting_pty: 1,
        session_count_vscode: 0,
        session_count_jetbrains: 0,
        connection_median_latency_ms: 12,
      }),
    );
    const deadline = Date.now() + 5000;
    let stats = await owner.deploymentStats();
    while (stats.workspaces.rx_bytes === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stats = await owner.deploymentStats();
    }
    socket.close();
    assert.deepEqual([stats.workspaces.running, stats.workspaces.stopped, stats.workspaces.pending, stats.workspaces.failed], [1, 1, 0, 0]);
    assert.deepEqual([stats.workspaces.rx_bytes, stats.workspaces.tx_bytes], [1200, 3400]);
    assert.deepEqual(stats.session_count, { vscode: 0, ssh: 2, jetbrains: 0, reconnecting_pty: 1 });
    assert.deepEqual(stats.workspaces.connection_latency_ms, { P50: 12, P95: 12 });
    assert.equal(Date.parse(stats.collected_at) - Date.parse(stats.aggregated_from), 15 * 60_000);
    const member = await createMember(test, 'member');
    await expectApiError(member.deploymentStats(), 403);
  });
});
