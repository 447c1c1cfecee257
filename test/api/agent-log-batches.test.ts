import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/sdk/api-error.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const line = (output: string) => ({ created_at: '2026-01-05T10:00:00.000Z', level: 'info' as const, output });

/** A template whose builds run agents with these tokens. */
async function templateWithAgents(owner: CoveClient, name: string, tokens: readonly string[]): Promise<string> {
  const agents = tokens.map((token, i) => ({ name: `a${i}`, auth_token: token, directory: '' }));
  // Agents on start only, as real templates have them: a stop or delete build that declared the
  // same tokens again would make its own agents their holders.
  const { template } = await createEchoTemplate(owner, name, {
    apply: { resources: [{ name: 'box', type: 'echo', agents }], stop: { resources: [] }, delete: { resources: [] } },
  });
  return template.id;
}

async function finished(client: CoveClient, build: WorkspaceBuild): Promise<WorkspaceBuild> {
  await client.followWorkspaceBuildLogs(build.id, () => undefined);
  return client.workspaceBuild(build.id);
}

function agentIdsOf(build: WorkspaceBuild): string[] {
  return build.resources.flatMap((r) => r.agents).map((a) => a.id);
}

/** The status a batch of one line gets with this token: 200 when stored. */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}

describe('agent log batches', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
  });
  after(async () => test.close());

  it('stores or refuses each of many concurrent batches whole, against its own agent limit', async () => {
    const [full, roomy] = ['token-of-the-full-agent', 'token-of-the-roomy-agent'];
    const templateId = await templateWithAgents(owner, 'concurrent', [full, roomy]);
    const workspace = await alice.createWorkspace('me', { name: 'concurrent', template_id: templateId });
    const [fullId, roomyId] = agentIdsOf(await finished(alice, workspace.latest_build));
    assert.ok(fullId && roomyId);

    // 24 batches of 64 KiB for an agent that may store 1 MiB: exactly 16 fit, whichever they are.
    // The other agent's small batches go in among them and all fit.
    const chunk = 'x'.repeat(16 * 1024);
    const batch = (n: number) => ['a', 'b', 'c', 'd'].map((part) => line(`${n}${part}${chunk}`.slice(0, chunk.length)));
    // Someone follows the roomy agent's logs all along: every line once, in order.
    const followed: string[] = [];
    const stopFollowing = new AbortController();
    const following = alice.followWorkspaceAgentLogs(roomyId, (log) => followed.push(log.output), undefined, stopFollowing.signal);
    const fullClient = test.anonymous.withToken(full);
    const roomyClient = test.anonymous.withToken(roomy);
    await roomyClient.patchAgentLogs({ log_source_id: '', logs: [line('small start')] });
    await eventually(() => assert.deepEqual(followed, ['small start']));
    const [fullStatuses, roomyStatuses] = await Promise.all([
      Promise.all(Array.from({ length: 24 }, (_, n) => statusOf(fullClient.patchAgentLogs({ log_source_id: '', logs: batch(n) })))),
      Promise.all(
        Array.from({ length: 24 }, (_, n) => statusOf(roomyClient.patchAgentLogs({ log_source_id: '', logs: [line(`small ${n}`)] }))),
      ),
    ]);
    assert.deepEqual(
      [fullStatuses.filter((s) => s === 200).length, fullStatuses.filter((s) => s === 413).length],
      [16, 8],
      `statuses: ${fullStatuses.join(' ')}`,
    );
    assert.ok(roomyStatuses.every((s) => s === 200));

    // What was stored is exactly the batches that were answered 200, each whole and in its order.
    const stored = (await alice.workspaceAgentLogs(fullId)).map((l) => l.output);
    const storedBatches = stored.map((output) => Number.parseInt(output, 10));
    const accepted = fullStatuses.flatMap((status, n) => (status === 200 ? [n] : []));
    assert.deepEqual(
      [...new Set(storedBatches)].sort((a, b) => a - b),
      accepted,
    );
    for (let i = 0; i < stored.length; i += 4) {
      assert.deepEqual(
        stored.slice(i, i + 4).map((output) => output.slice(String(storedBatches[i]).length, String(storedBatches[i]).length + 1)),
        ['a', 'b', 'c', 'd'],
      );
    }
    const agent = await alice.workspaceAgent(fullId);
    assert.equal(agent.logs_length, 16 * 4 * chunk.length);
    assert.equal(agent.logs_overflowed, true);
    assert.deepEqual(
      (await alice.workspaceAgentLogs(roomyId)).map((l) => l.output).sort(),
      ['small start', ...Array.from({ length: 24 }, (_, n) => `small ${n}`)].sort(),
    );
    assert.equal((await alice.workspaceAgent(roomyId)).logs_overflowed, false);
    const roomyStored = (await alice.workspaceAgentLogs(roomyId)).map((l) => l.output);
    await eventually(() => assert.deepEqual(followed, roomyStored));
    stopFollowing.abort();
    await following.catch(() => undefined);
  });

  it('refuses a token at once when its agent stops being current, and sends it to the agent that has it now', async () => {
    const token = 'token-that-outlives-its-agent';
    const templateId = await templateWithAgents(owner, 'changing', [token]);
    const workspace = await alice.createWorkspace('me', { name: 'changing', template_id: templateId });
    const [firstAgent] = agentIdsOf(await finished(alice, workspace.latest_build));
    assert.ok(firstAgent);
    const agentClient = test.anonymous.withToken(token);
    const send = (output: string) => statusOf(agentClient.patchAgentLogs({ log_source_id: '', logs: [line(output)] }));
    assert.equal(await send('one'), 200);
    assert.equal(await send('two'), 200);

    // Stopped: the agent of the build before the stop is refused.
    await finished(alice, await alice.createWorkspaceBuild(workspace.id, { transition: 'stop' }));
    assert.equal(await send('after the stop'), 401);

    // Started again: the same token is now the new build's agent's (the newest agent with it),
    // and its lines go there.
    test.clock.advance(1_000);
    const restarted = await finished(alice, await alice.createWorkspaceBuild(workspace.id, { transition: 'start' }));
    const [secondAgent] = agentIdsOf(restarted);
    assert.ok(secondAgent && secondAgent !== firstAgent);
    assert.equal(await send('three'), 200);
    assert.deepEqual(
      (await alice.workspaceAgentLogs(firstAgent)).map((l) => l.output),
      ['one', 'two'],
    );
    assert.deepEqual(
      (await alice.workspaceAgentLogs(secondAgent)).map((l) => l.output),
      ['three'],
    );

    // Deleted: no agent of it is anyone's any more.
    await finished(alice, await alice.createWorkspaceBuild(workspace.id, { transition: 'delete' }));
    assert.equal(await send('after the delete'), 401);
  });

  it('answers a line of no known level with a 400 naming the field', async () => {
    const token = 'token-with-a-loud-line';
    const templateId = await templateWithAgents(owner, 'levels', [token]);
    const workspace = await alice.createWorkspace('me', { name: 'levels', template_id: templateId });
    await finished(alice, workspace.latest_build);
    const error = await expectApiError(
      test.anonymous.withToken(token).request('PATCH', '/workspaceagents/me/logs', {
        body: { log_source_id: '', logs: [line('fine'), { ...line('too loud'), level: 'loud' }] },
      }),
      400,
    );
    assert.deepEqual(error.body, {
      message: 'Validation failed.',
      validations: [{ field: 'level', detail: 'Validation failed for tag "oneof" with value: "loud"' }],
    });
  });
});
