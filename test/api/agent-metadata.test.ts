import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { boundedResult } from '../../src/domain/agent-metadata.js';
import { createNativeProvisioner } from '../../src/provisioner/native/native-provisioner.js';
import { ProvisionerError } from '../../src/provisioner/provisioner.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { WorkspaceAgentMetadata } from '../../src/sdk/wire/index.js';
import { startAgentWorkspace, type AgentWorkspace } from '../helpers/agent-workspace.js';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * The agent metadata watch end to end: a template's agent declares metadata items, the real agent
 * runs their scripts and reports, and the daemon serves the latest results over server-sent events
 * and a WebSocket, in the reference's shapes, to those who may read the workspace.
 */

const AGENT_TOKEN = 'agent-token-of-the-metadata-test';
const LIMIT = 10 * 1024;

/** The items, in the template's order: `order` first, then key. */
const ITEMS = [
  { key: 'value', display_name: 'Value', script: 'cat value.txt', interval: 1, timeout: 0, order: 1 },
  { key: 'failing', display_name: 'Failing', script: 'echo broken >&2; exit 3', interval: 1, timeout: 0, order: 2 },
  { key: 'slow', display_name: 'Slow', script: 'sleep 30', interval: 1, timeout: 1, order: 2 },
  { key: 'big', display_name: 'Big', script: "head -c 20000 /dev/zero | tr '\\0' x", interval: 60, timeout: 5, order: 3 },
] as const;

function byKey(list: readonly WorkspaceAgentMetadata[], key: string): WorkspaceAgentMetadata {
  const found = list.find((item) => item.description.key === key);
  assert.ok(found, `the list has ${key}`);
  return found;
}

/** Events of one watch, as they came. */
class Received {
  readonly lists: WorkspaceAgentMetadata[][] = [];
  push(list: WorkspaceAgentMetadata[]): void {
    this.lists.push(list);
  }
  /** Resolves with the first list (from `from` on) that `matches`. */
  until(matches: (list: readonly WorkspaceAgentMetadata[]) => boolean, from = 0, timeoutMs = 10_000): Promise<WorkspaceAgentMetadata[]> {
    return eventually(() => {
      const found = this.lists.slice(from).find(matches);
      assert.ok(found, `no list matched yet; last: ${JSON.stringify(this.lists.at(-1))}`);
      return found;
    }, timeoutMs);
  }
}

const valueIs = (value: string) => (list: readonly WorkspaceAgentMetadata[]) =>
  list.some((item) => item.description.key === 'value' && item.result.value === value);

describe('agent metadata: collected by the agent, watched over SSE and WebSocket', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let bob: CoveClient;
  let home: string;
  let ws: AgentWorkspace;

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
    home = mkdtempSync(join(tmpdir(), 'cove-metadata-'));
    writeFileSync(join(home, 'value.txt'), 'one');
    ws = await startAgentWorkspace({ url: test.url, owner, member: alice, token: AGENT_TOKEN, home, agent: { metadata: ITEMS } });
  });
  after(async () => {
    await ws.agent.stop();
    await test.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('serves the first state and every update over server-sent events, in the reference shapes', async () => {
    const received = new Received();
    const abort = new AbortController();
    const watching = alice.watchWorkspaceAgentMetadata(ws.agentId, (list) => received.push(list), abort.signal);
    try {
      const first = await received.until(() => true);
      assert.deepEqual(
        first.map((item) => item.description),
        ITEMS.map(({ display_name, key, script, interval, timeout }) => ({ display_name, key, script, interval, timeout })),
        'every item, as the template declares it, in order then by key',
      );
      for (const item of first) {
        assert.deepEqual(Object.keys(item), ['result', 'description']);
        assert.deepEqual(Object.keys(item.result), ['collected_at', 'age', 'value', 'error']);
        assert.equal(typeof item.result.age, 'number');
      }

      const collected = await received.until(
        (list) => valueIs('one')(list) && list.every((item) => item.result.collected_at !== '0001-01-01T00:00:00Z'),
      );
      const value = byKey(collected, 'value').result;
      assert.deepEqual([value.value, value.error], ['one', '']);
      // The daemon's clock (the test's) stamps results, less the age the agent measured.
      assert.ok(Math.abs(Date.parse(value.collected_at) - test.clock.now().getTime()) < 5_000, 'collected just now');
      assert.ok(value.age >= 0 && value.age < 5);
      const failing = byKey(collected, 'failing').result;
      assert.deepEqual([failing.value, failing.error], ['broken\n', 'run cmd: exit status 3']);
      const slow = await received.until((list) => byKey(list, 'slow').result.error !== '');
      assert.match(byKey(slow, 'slow').result.error, /timed out after 1s/);
      const big = byKey(collected, 'big').result;
      assert.equal(big.value, 'x'.repeat(LIMIT), 'the value is cut at 10 KiB');
      assert.equal(big.error, `run cmd: output truncated from 20000 to ${LIMIT} bytes`);

      const from = received.lists.length;
      const changedAt = Date.now();
      writeFileSync(join(home, 'value.txt'), 'two');
      await received.until(valueIs('two'), from);
      // One interval of the item (1 s) to run it, plus the report and the watch's own delay.
      assert.ok(Date.now() - changedAt < 3_000, `the update arrived after ${Date.now() - changedAt} ms`);

      // With nothing new, the list comes again every few seconds with its items' ages moved on.
      test.clock.advance(60_000);
      const aged = await received.until((list) => byKey(list, 'big').result.age >= 60, received.lists.length);
      assert.equal(byKey(aged, 'big').result.collected_at, big.collected_at, 'the same result, older');
    } finally {
      abort.abort();
      await watching;
    }
  });

  it('serves the same lists over a WebSocket, one {type, data} message each', async () => {
    const socket = new WebSocket(`${test.url.replace(/^http/, 'ws')}/api/v2/workspaceagents/${ws.agentId}/watch-metadata-ws`, {
      headers: { 'Service-Session-Token': alice.token ?? '' },
    });
    const messages: { type: string; data?: WorkspaceAgentMetadata[] }[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(data.toString()) as { type: string; data?: WorkspaceAgentMetadata[] }));
    try {
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      const first = await eventually(() => {
        const message = messages[0];
        assert.ok(message);
        return message;
      });
      assert.equal(first.type, 'data');
      assert.deepEqual(
        first.data?.map((item) => item.description.key),
        ITEMS.map((item) => item.key),
      );
      writeFileSync(join(home, 'value.txt'), 'three');
      await eventually(() => assert.ok(messages.some((message) => message.type === 'data' && valueIs('three')(message.data ?? []))));
    } finally {
      socket.terminate();
    }
  });

  it('is not found for a user who cannot read the workspace', async () => {
    const path = `/workspaceagents/${ws.agentId}/watch-metadata`;
    assert.equal((await rawRequest(test.url, 'GET', path, { headers: { 'Service-Session-Token': bob.token ?? '' } })).status, 404);
    const socket = new WebSocket(`${test.url.replace(/^http/, 'ws')}/api/v2${path}-ws`, {
      headers: { 'Service-Session-Token': bob.token ?? '' },
    });
    const status = await new Promise<number>((resolve, reject) => {
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.once('open', () => reject(new Error('the socket opened')));
      socket.once('error', () => undefined);
    });
    socket.terminate();
    assert.equal(status, 404);
    // The owner of the deployment may read every workspace.
    const abort = new AbortController();
    const received = new Received();
    const watching = owner.watchWorkspaceAgentMetadata(ws.agentId, (list) => received.push(list), abort.signal);
    await received.until((list) => list.length === ITEMS.length);
    abort.abort();
    await watching;
  });

  it('bounds what an agent reports: a value past 10 KiB is cut, and the error says so', () => {
    const bounded = boundedResult({ key: 'k', value: 'é'.repeat(LIMIT), error: '', collected_at: new Date().toISOString() });
    assert.equal(Buffer.byteLength(bounded.value), LIMIT);
    assert.equal(bounded.value, 'é'.repeat(LIMIT / 2));
    assert.equal(bounded.error, `value of ${2 * LIMIT} bytes exceeded ${LIMIT} bytes`);
  });

  it('reads the metadata items of an agent in template.yaml, with their defaults, and refuses a repeated key', async () => {
    const parse = async (items: string) => {
      const directory = mkdtempSync(join(tmpdir(), 'cove-metadata-template-'));
      try {
        const yaml = `resources:\n  - name: shell\n    type: process\n    agents:\n      - name: main\n        metadata:\n${items}`;
        writeFileSync(join(directory, 'template.yaml'), yaml);
        return await createNativeProvisioner().parse({
          directory,
          variableValues: [],
          log: () => undefined,
          signal: new AbortController().signal,
        });
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    };
    const parsed = await parse(
      '          - { key: load, display_name: Load, script: cat /proc/loadavg, interval: 10, timeout: 2, order: 1 }\n' +
        '          - { key: disk, script: df -h ., interval: 60 }\n',
    );
    assert.deepEqual(parsed.resources[0]?.agents[0]?.metadata, [
      { key: 'load', display_name: 'Load', script: 'cat /proc/loadavg', interval: 10, timeout: 2, order: 1 },
      { key: 'disk', display_name: 'disk', script: 'df -h .', interval: 60, timeout: 0, order: 0 },
    ]);
    await assert.rejects(
      parse('          - { key: load, script: x, interval: 1 }\n          - { key: load, script: y, interval: 1 }\n'),
      (error) => error instanceof ProvisionerError && /metadata\[1\]\.key.*already used/.test(error.message),
    );
  });
});
