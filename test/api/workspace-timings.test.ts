import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { CoveClient } from '../../src/sdk/client.js';
import type { AgentManifest } from '../../src/sdk/wire/index.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { createEchoTemplate } from '../helpers/echo-template.js';

const TOKEN = 'timings-agent-token';

describe('GET /workspaces/{workspace}/timings', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('reports provisioner stages, when the agent connected and how its scripts ran', async () => {
    const agent = { name: 'main', auth_token: TOKEN, scripts: [{ display_name: 'Install', script: 'true', run_on_start: true }] };
    const { template } = await createEchoTemplate(owner, 'timed', {
      apply: { resources: [{ name: 'box', type: 'echo', agents: [agent] }] },
    });
    const workspace = await owner.createWorkspace('me', { name: 'timed', template_id: template.id });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    assert.deepEqual((await owner.workspaceTimings(workspace.id)).agent_connection_timings, [], 'the agent has not connected');

    const socket = new WebSocket(`${test.url.replace(/^http/, 'ws')}/api/v2/workspaceagents/me/rpc`, {
      headers: { 'Service-Session-Token': TOKEN },
    });
    const manifest = await new Promise<AgentManifest>((resolve, reject) => {
      socket.once('message', (data) => resolve((JSON.parse(data.toString()) as { manifest: AgentManifest }).manifest));
      socket.once('error', reject);
    });
    const script = manifest.scripts[0];
    assert.ok(script);
    socket.send(
      JSON.stringify({
        type: 'script_completed',
        script_id: script.id,
        started_at: '2026-01-05T10:00:01.000Z',
        ended_at: '2026-01-05T10:00:03.000Z',
        exit_code: 0,
        stage: 'start',
        status: 'ok',
      }),
    );
    const deadline = Date.now() + 5000;
    let timings = await owner.workspaceTimings(workspace.id);
    while (timings.agent_script_timings.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      timings = await owner.workspaceTimings(workspace.id);
    }
    socket.close();
    assert.deepEqual(
      timings.agent_script_timings.map((t) => [t.display_name, t.stage, t.status, t.exit_code, t.workspace_agent_name]),
      [['Install', 'start', 'ok', 0, 'main']],
    );
    assert.deepEqual(
      timings.agent_connection_timings.map((t) => [t.stage, t.workspace_agent_name]),
      [['connect', 'main']],
    );
    assert.ok(timings.provisioner_timings.some((t) => t.stage === 'apply' && t.action === 'Starting workspace'));
  });
});
