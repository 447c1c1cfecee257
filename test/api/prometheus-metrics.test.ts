import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentHandle } from '../../src/agent/index.js';
import { openAgentStream } from '../../src/sdk/agent-streams.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** The value of the sample `name{labels}` in an exposition, or undefined when there is none. */
function sample(text: string, name: string, labels = ''): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const [key, value] = line.split(' ');
    if (key === name && labels === '') return Number(value);
    if (key?.startsWith(`${name}{`) && labels.split(',').every((label) => key.includes(label))) return Number(value);
  }
  return undefined;
}

describe('Prometheus metrics', () => {
  let test: TestDaemon;
  let agent: AgentHandle | undefined;
  let home: string;
  let alice: CoveClient;
  let agentId: string;

  before(async () => {
    test = await startTestDaemon({
      flags: { provisionerDaemons: '1', prometheusEnable: 'true', prometheusAddress: '127.0.0.1:0' },
    });
    const owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    home = await mkdtemp(join(tmpdir(), 'cove-metrics-'));
    ({ agent, agentId } = await startAgentWorkspace({ url: test.url, owner, member: alice, token: randomUUID(), home }));
  });
  after(async () => {
    await agent?.stop();
    await test?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('serves requests, workspaces, builds, jobs, agents, relay traffic and query latency on a listener of its own', async () => {
    assert.match(test.daemon.metricsUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(test.daemon.metricsUrl, test.url);
    const { stream } = await openAgentStream(alice, agentId, { service: 'echo' });
    await new Promise<void>((resolve) => {
      stream.once('data', () => resolve());
      stream.write('hello');
    });

    const response = await fetch(`${test.daemon.metricsUrl}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/plain/);
    const text = await response.text();
    stream.destroy();

    const positive = (name: string, labels = '') => {
      const value = sample(text, name, labels);
      assert.ok(value !== undefined && value > 0, `${name}{${labels}} is ${value}`);
    };
    positive('cove_http_requests_total', 'route="/api/v2/users/:user/workspaces",method="POST",status="200"');
    positive('cove_http_request_duration_seconds_bucket', 'route="/api/v2/users/:user/workspaces",le="+Inf"');
    positive('cove_workspaces', 'status="running"');
    assert.equal(sample(text, 'cove_workspaces', 'status="failed"'), 0);
    positive('cove_workspace_builds_total', 'status="succeeded"');
    positive('cove_provisioner_job_duration_seconds_count', 'type="workspace_build",status="succeeded"');
    positive('cove_provisioner_job_duration_seconds_count', 'type="template_version_import"');
    assert.equal(sample(text, 'cove_provisioner_jobs', 'state="queued"'), 0);
    assert.equal(sample(text, 'cove_provisioner_jobs', 'state="running"'), 0);
    positive('cove_agents_connected');
    positive('cove_relay_streams_open');
    positive('cove_relay_streams_total');
    positive('cove_relay_bytes_total', 'direction="to_agent"');
    positive('cove_relay_bytes_total', 'direction="to_client"');
    positive('cove_database_query_duration_seconds_count', 'outcome="ok"');
    positive('cove_process_cpu_seconds_total');
    positive('cove_nodejs_heap_size_total_bytes');
  });

  it('answers 404 anywhere but /metrics', async () => {
    assert.equal((await fetch(`${test.daemon.metricsUrl}/`)).status, 404);
  });
});
