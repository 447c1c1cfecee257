import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { createTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type {
  AgentManifest,
  WorkspaceAgent,
  WorkspaceAgentLog,
  WorkspaceAgentLogSource,
  WorkspaceBuild,
} from '../../src/sdk/wire/index.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, startTestDaemon, createOwner, type TestDaemon } from '../helpers/test-daemon.js';
import { eventually } from '../helpers/eventually.js';

const TOKEN_V1 = 'agent-token-of-version-one';
const TOKEN_V2 = 'agent-token-of-version-two';

function echoWithAgent(token: string, extra: Record<string, unknown> = {}): string {
  const agent = {
    name: 'main',
    ...(token ? { auth_token: token } : {}),
    directory: '~/project',
    env: { GREETING: 'hello' },
    scripts: [{ display_name: 'Setup', script: 'echo setup', run_on_start: true }],
    apps: [
      {
        slug: 'web',
        display_name: 'Web',
        url: 'http://localhost:8080',
        healthcheck: { url: 'http://localhost:8080/healthz', interval: 5, threshold: 3 },
      },
    ],
    ...extra,
  };
  return JSON.stringify({ apply: { resources: [{ name: 'box', type: 'echo', agents: [agent] }] } });
}

/** A fake agent: the rpc socket, the manifest it got, and how it ended. */
interface FakeAgent {
  readonly socket: WebSocket;
  readonly manifest: AgentManifest;
  readonly closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
}

async function connectAgent(url: string, token: string): Promise<FakeAgent> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v2/workspaceagents/me/rpc`, {
    headers: { 'Service-Session-Token': token },
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const manifest = await new Promise<AgentManifest>((resolve, reject) => {
    socket.once('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string; manifest: AgentManifest };
      if (message.type === 'manifest') resolve(message.manifest);
      else reject(new Error(`expected the manifest first, got ${data.toString()}`));
    });
    socket.on('unexpected-response', (_request, response) => reject(new Error(`rpc refused: ${response.statusCode}`)));
    socket.on('error', reject);
  });
  return { socket, manifest, closed, send: (message) => socket.send(JSON.stringify(message)) };
}

async function finished(client: CoveClient, build: WorkspaceBuild): Promise<WorkspaceBuild> {
  await client.followWorkspaceBuildLogs(build.id, () => undefined);
  return client.workspaceBuild(build.id);
}

async function templateOf(owner: CoveClient, name: string, echo: string, templateId?: string) {
  const { id } = await owner.uploadFile(await createTar({ 'echo.json': echo }));
  const version = await owner.createTemplateVersion('default', { file_id: id, ...(templateId ? { template_id: templateId } : {}) });
  await owner.followTemplateVersionLogs(version.id, () => undefined);
  if (templateId) return { templateId, versionId: version.id };
  const template = await owner.createTemplate('default', { name, template_version_id: version.id });
  return { templateId: template.id, versionId: version.id };
}

function agentOf(build: WorkspaceBuild): WorkspaceAgent {
  const agent = build.resources.flatMap((r) => r.agents)[0];
  assert.ok(agent, 'the build has an agent');
  return agent;
}

const line = (output: string, level: 'info' | 'error' = 'info') => ({ created_at: '2026-01-05T10:00:00.000Z', level, output });

describe('workspace agents', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let bob: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
  });
  after(async () => test.close());

  it('serves a connected agent: manifest, lifecycle, status, health, logs, limits and stale tokens', async () => {
    const { templateId } = await templateOf(owner, 'with-agent', echoWithAgent(TOKEN_V1));
    const workspace = await alice.createWorkspace('me', { name: 'dev', template_id: templateId });
    const agentId = agentOf(await finished(alice, workspace.latest_build)).id;
    assert.equal((await alice.workspaceAgent(agentId)).status, 'connecting');

    const agent = await connectAgent(test.url, TOKEN_V1);
    assert.equal(agent.manifest.agent_id, agentId);
    assert.equal(agent.manifest.agent_name, 'main');
    assert.equal(agent.manifest.owner_username, 'alice');
    assert.equal(agent.manifest.workspace_name, 'dev');
    assert.equal(agent.manifest.directory, '~/project');
    assert.deepEqual(agent.manifest.environment_variables, { GREETING: 'hello' });
    assert.equal(agent.manifest.stats_interval, 30);
    assert.deepEqual(
      agent.manifest.scripts.map((s) => [s.display_name, s.script, s.run_on_start]),
      [['Setup', 'echo setup', true]],
    );
    assert.deepEqual(
      agent.manifest.apps.map((a) => a.slug),
      ['web'],
    );

    agent.send({
      type: 'startup',
      version: '2.3.0',
      expanded_directory: '/home/alice/project',
      subsystems: ['exectrace', 'envbox', 'exectrace'],
    });
    agent.send({ type: 'lifecycle', state: 'starting', changed_at: '2026-01-05T10:00:01.000Z' });
    agent.send({ type: 'lifecycle', state: 'ready', changed_at: '2026-01-05T10:00:02.000Z' });
    const app = agent.manifest.apps[0];
    assert.ok(app);
    agent.send({ type: 'app_health', apps: { [app.id]: 'healthy' } });
    const ready = await eventually(async () => {
      const seen = await alice.workspaceAgent(agentId);
      assert.equal(seen.apps[0]?.health, 'healthy');
      return seen;
    });
    assert.equal(ready.status, 'connected');
    assert.equal(ready.lifecycle_state, 'ready');
    assert.deepEqual(ready.health, { healthy: true });
    assert.equal(ready.started_at, '2026-01-05T10:00:01.000Z');
    assert.equal(ready.ready_at, '2026-01-05T10:00:02.000Z');
    assert.equal(ready.version, '2.3.0');
    assert.equal(ready.expanded_directory, '/home/alice/project');
    assert.deepEqual(ready.subsystems, ['envbox', 'exectrace']);
    assert.deepEqual(
      ready.scripts.map((s) => [s.id, s.log_source_id]),
      agent.manifest.scripts.map((s) => [s.id, s.log_source_id]),
    );
    assert.equal(ready.apps[0]?.id, app.id);
    assert.ok(ready.first_connected_at);
    assert.equal(ready.disconnected_at, undefined);
    const seenInWorkspace = agentOf((await alice.workspace(workspace.id)).latest_build);
    assert.equal(seenInWorkspace.status, 'connected');
    assert.deepEqual((await alice.workspace(workspace.id)).health, { healthy: true, failing_agents: [] });

    agent.send({
      type: 'stats',
      rx_bytes: 10,
      tx_bytes: 20,
      session_count_ssh: 1,
      session_count_reconnecting_pty: 0,
      session_count_vscode: 0,
      session_count_jetbrains: 0,
      connection_median_latency_ms: 3,
    });
    test.clock.advance(1_000);
    const usedAt = test.clock.now().toISOString();
    agent.send({
      type: 'stats',
      rx_bytes: 1,
      tx_bytes: 0,
      session_count_ssh: 1,
      session_count_reconnecting_pty: 0,
      session_count_vscode: 0,
      session_count_jetbrains: 0,
      connection_median_latency_ms: 3,
    });
    await eventually(async () => assert.equal((await alice.workspace(workspace.id)).last_used_at, usedAt));
    assert.deepEqual((await alice.workspaceAgent(agentId)).latency, { 'Cove Embedded Relay': { latency_ms: 3, preferred: true } });

    // Logs: in order, listed, and followed as they arrive.
    const agentClient = test.anonymous.withToken(TOKEN_V1);
    const source = await agentClient.postAgentLogSource({
      id: '6b8c3e0e-1f1a-4c55-9d89-3c1f0f6b2a11',
      display_name: 'Custom',
      icon: '/icon.svg',
    });
    assert.equal(source.display_name, 'Custom');
    const followed: WorkspaceAgentLog[] = [];
    const following = alice.followWorkspaceAgentLogs(agentId, (log) => followed.push(log));
    await agentClient.patchAgentLogs({ log_source_id: source.id, logs: [line('one'), line('two', 'error')] });
    await agentClient.patchAgentLogs({ log_source_id: '', logs: [line('three\0')] });
    const logs = await alice.workspaceAgentLogs(agentId);
    assert.deepEqual(
      logs.map((l) => [l.output, l.level]),
      [
        ['one', 'info'],
        ['two', 'error'],
        ['three\u274C', 'info'],
      ],
    );
    assert.deepEqual(
      logs.map((l) => l.source_id),
      [source.id, source.id, '3b579bf4-1ed8-4b99-87a8-e9a1e3410410'],
    );
    assert.ok(logs.every((l, i) => i === 0 || l.id > (logs[i - 1]?.id ?? 0)));
    assert.deepEqual(
      (await alice.workspaceAgentLogs(agentId, { after: logs[0]?.id ?? 0 })).map((l) => l.output),
      ['two', 'three\u274C'],
    );
    await eventually(async () =>
      assert.deepEqual(
        followed.map((l) => l.output),
        ['one', 'two', 'three\u274C'],
      ),
    );
    await agentClient.patchAgentLogs({ log_source_id: source.id, logs: [line('four')] });
    await eventually(async () => assert.equal(followed.at(-1)?.output, 'four'));
    const sources = (await alice.workspaceAgent(agentId)).log_sources as { display_name: string }[];
    assert.deepEqual(sources.map((s) => s.display_name).sort(), ['Custom', 'External', 'Setup']);
    // Posting a known source again renames it; it keeps its creation time.
    await agentClient.postAgentLogSource({ id: source.id, display_name: 'Renamed', icon: '/other.svg' });
    const renamed = ((await alice.workspaceAgent(agentId)).log_sources as WorkspaceAgentLogSource[]).find((s) => s.id === source.id);
    assert.deepEqual([renamed?.display_name, renamed?.icon, renamed?.created_at], ['Renamed', '/other.svg', source.created_at]);
    await expectApiError(agentClient.patchAgentLogs({ log_source_id: '', logs: [] }), 400);

    // The 1 MiB limit: a batch that would pass it stores nothing and marks the agent.
    const big = 'x'.repeat(400 * 1024);
    await agentClient.patchAgentLogs({ log_source_id: '', logs: [line(big)] });
    await agentClient.patchAgentLogs({ log_source_id: '', logs: [line(big)] });
    const before = (await alice.workspaceAgentLogs(agentId)).length;
    const overflow = await expectApiError(agentClient.patchAgentLogs({ log_source_id: '', logs: [line('small'), line(big)] }), 413);
    assert.equal(overflow.body.message, 'Logs limit exceeded');
    await expectApiError(agentClient.patchAgentLogs({ log_source_id: '', logs: [line('tiny')] }), 413);
    assert.equal((await alice.workspaceAgentLogs(agentId)).length, before, 'nothing of a refused batch is stored');
    const overflowed = await alice.workspaceAgent(agentId);
    assert.equal(overflowed.logs_overflowed, true);
    assert.equal(overflowed.logs_length, 'one'.length + 'two'.length + Buffer.byteLength('three\u274C') + 'four'.length + 2 * big.length);

    // Others cannot see it; strangers are not agents.
    await expectApiError(bob.workspaceAgent(agentId), 404);
    await expectApiError(bob.workspaceAgentLogs(agentId), 404);
    await expectApiError(test.anonymous.withToken('not-an-agent-token').patchAgentLogs({ log_source_id: '', logs: [line('x')] }), 401);
    await expectApiError(alice.patchAgentLogs({ log_source_id: '', logs: [line('x')] }), 401);
    await assert.rejects(connectAgent(test.url, 'not-an-agent-token'), /rpc refused: 401/);

    // Shutting down ends the follow; closing the socket disconnects.
    agent.send({ type: 'lifecycle', state: 'shutting_down', changed_at: '2026-01-05T10:00:03.000Z' });
    agent.send({ type: 'lifecycle', state: 'off', changed_at: '2026-01-05T10:00:04.000Z' });
    await following;
    agent.socket.close();
    await agent.closed;
    const gone = await eventually(async () => {
      const seen = await alice.workspaceAgent(agentId);
      assert.equal(seen.status, 'disconnected');
      return seen;
    });
    assert.ok(gone.disconnected_at);
    assert.equal(gone.health.healthy, true, 'an agent that is off is not failing');

    // Silence: past the inactive timeout without a heartbeat, the agent counts as disconnected.
    const back = await connectAgent(test.url, TOKEN_V1);
    assert.deepEqual(
      back.manifest.scripts.map((s) => s.id),
      agent.manifest.scripts.map((s) => s.id),
      'script ids are stable',
    );
    assert.deepEqual(
      back.manifest.apps.map((a) => a.id),
      agent.manifest.apps.map((a) => a.id),
      'app ids are stable',
    );
    back.send({ type: 'lifecycle', state: 'starting', changed_at: '2026-01-05T10:00:05.000Z' });
    const connected = await eventually(async () => {
      const seen = await alice.workspaceAgent(agentId);
      assert.equal(seen.status, 'connected');
      assert.equal(seen.lifecycle_state, 'starting');
      return seen;
    });
    test.clock.advance(31_000);
    const silent = await alice.workspaceAgent(agentId);
    assert.equal(silent.status, 'disconnected');
    assert.equal(silent.disconnected_at, connected.last_connected_at);
    assert.deepEqual(silent.health, { healthy: false, reason: 'agent has lost connection' });

    // A new build: the old agent's socket is closed and its token refused.
    const v2 = await templateOf(owner, '', echoWithAgent(TOKEN_V2), templateId);
    const stop = await finished(alice, await alice.createWorkspaceBuild(workspace.id, { transition: 'stop' }));
    assert.equal(stop.status, 'stopped');
    const closed = await back.closed;
    assert.equal(closed.code, 4000);
    await finished(alice, await alice.createWorkspaceBuild(workspace.id, { transition: 'start', template_version_id: v2.versionId }));
    await expectApiError(agentClient.patchAgentLogs({ log_source_id: '', logs: [line('late')] }), 401);
    await assert.rejects(connectAgent(test.url, TOKEN_V1), /rpc refused: 401/);
    const fresh = await connectAgent(test.url, TOKEN_V2);
    assert.notEqual(fresh.manifest.agent_id, agentId);
    fresh.socket.close();
    await fresh.closed;
  });

  it('times out an agent that never connects, and the workspace reports it failing', async () => {
    const { templateId } = await templateOf(owner, 'slow-agent', echoWithAgent('', { connection_timeout_seconds: 60 }));
    const workspace = await alice.createWorkspace('me', { name: 'slow', template_id: templateId });
    const agentId = agentOf(await finished(alice, workspace.latest_build)).id;
    const waiting = await alice.workspaceAgent(agentId);
    assert.equal(waiting.status, 'connecting');
    assert.deepEqual(waiting.health, { healthy: false, reason: 'agent is not running' });
    test.clock.advance(61_000);
    const late = await alice.workspaceAgent(agentId);
    assert.equal(late.status, 'timeout');
    assert.deepEqual(late.health, { healthy: false, reason: 'agent is taking too long to connect' });
    const seen = await alice.workspace(workspace.id);
    assert.equal(seen.health.healthy, false);
    assert.deepEqual(seen.health.failing_agents, [agentId]);
    assert.equal(agentOf(seen.latest_build).status, 'timeout');
  });

  it("takes an agent's open sessions as use: the deadline moves out by the activity bump", async () => {
    const token = 'agent-token-for-activity';
    const { templateId } = await templateOf(owner, 'busy-agent', echoWithAgent(token));
    const workspace = await alice.createWorkspace('me', { name: 'busy', template_id: templateId, ttl_ms: 3_600_000 });
    const build = await finished(alice, workspace.latest_build);
    assert.ok(build.deadline, 'a TTL gives the build a deadline');
    const deadline = Date.parse(build.deadline);
    const agent = await connectAgent(test.url, token);
    const stats = (sessions: number) => ({
      type: 'stats',
      rx_bytes: 0,
      tx_bytes: 0,
      session_count_ssh: sessions,
      session_count_reconnecting_pty: 0,
      session_count_vscode: 0,
      session_count_jetbrains: 0,
      connection_median_latency_ms: 1,
    });

    // Nearly an hour later, traffic without sessions is not use; an open session is.
    test.clock.advance(50 * 60_000);
    agent.send(stats(0));
    agent.send({ type: 'lifecycle', state: 'starting', changed_at: test.clock.now().toISOString() });
    await eventually(async () => assert.equal((await alice.workspaceAgent(agentOf(build).id)).lifecycle_state, 'starting'));
    assert.equal(Date.parse((await alice.workspace(workspace.id)).latest_build.deadline ?? ''), deadline);
    agent.send(stats(1));
    const bumpedTo = test.clock.now().getTime() + 3_600_000;
    await eventually(async () => assert.equal(Date.parse((await alice.workspace(workspace.id)).latest_build.deadline ?? ''), bumpedTo));
    agent.socket.close();
    await agent.closed;
  });
});
