import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_AGENT_LOGS_BYTES } from '../../src/domain/agent-logs.js';
import type { AgentLogBatch } from '../../src/store/rows.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const SOURCE = '3b579bf4-1ed8-4b99-87a8-e9a1e3410410';
const AT = '2026-01-05T10:00:00.000Z';

/** A batch of lines that are `output` each, counted as the domain counts them. */
function batchOf(outputs: readonly string[], source?: AgentLogBatch['source']): AgentLogBatch {
  return {
    sourceId: SOURCE,
    lines: outputs.map((output) => [AT, 'info', output] as const),
    bytes: outputs.reduce((sum, output) => sum + Buffer.byteLength(output), 0),
    maxBytes: MAX_AGENT_LOGS_BYTES,
    source: source ?? { id: SOURCE, display_name: 'External', icon: '', created_at: AT },
  };
}

describe('agent log writer', () => {
  let test: TestDaemon;
  let agentIds: string[];
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    const owner = await createOwner(test);
    const agents = ['a', 'b', 'c'].map((name) => ({ name, auth_token: `token-${name}`, directory: '' }));
    const { template } = await createEchoTemplate(owner, 'writer', { apply: { resources: [{ name: 'box', type: 'echo', agents }] } });
    const workspace = await owner.createWorkspace('me', { name: 'writer', template_id: template.id });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    agentIds = (await owner.workspaceBuild(workspace.latest_build.id)).resources.flatMap((r) => r.agents).map((a) => a.id);
  });
  after(async () => test.close());

  /** An agent's stored log lines, in order. */
  function logsOf(agentId: string): Promise<{ id: number; output: string }[]> {
    return test.daemon.store.db
      .selectFrom('workspace_agent_logs')
      .select(['id', 'output'])
      .where('agent_id', '=', agentId)
      .orderBy('id')
      .execute();
  }

  async function outputsOf(agentId: string): Promise<string[]> {
    return (await logsOf(agentId)).map((row) => row.output);
  }

  it('stores the batches that wait together in one group in their order, each against its own limit', async () => {
    const [full, roomy] = agentIds;
    assert.ok(full && roomy);
    const writer = test.daemon.store.agentLogWriter;
    // Asked for in the same turn, so they go in as one group: 24 batches of 64 KiB for an agent
    // that may store 1 MiB, with small batches of another agent among them.
    const chunk = 16 * 1024;
    const big = (n: number) => ['a', 'b', 'c', 'd'].map((part) => `${n}${part}`.padEnd(chunk, '.'));
    const appends = Array.from({ length: 24 }, (_, n) => [
      writer.append(full, batchOf(big(n))),
      writer.append(roomy, batchOf([`small ${n}`])),
    ]).flat();
    const outcomes = await Promise.all(appends);
    const fullOutcomes = outcomes.filter((_, i) => i % 2 === 0);
    const roomyOutcomes = outcomes.filter((_, i) => i % 2 === 1);

    // The first 16 fit exactly; the 17th overflows the agent; the rest find it overflowed.
    assert.deepEqual(
      fullOutcomes.map((o) => (o?.stored ? 'stored' : o?.newlyOverflowed ? 'overflowed' : 'refused')),
      [...Array<string>(16).fill('stored'), 'overflowed', ...Array<string>(7).fill('refused')],
    );
    assert.ok(roomyOutcomes.every((o) => o?.stored));
    assert.deepEqual(
      (await outputsOf(full)).map((output) => output.slice(0, output.indexOf('.'))),
      Array.from({ length: 16 }, (_, n) => ['a', 'b', 'c', 'd'].map((part) => `${n}${part}`)).flat(),
    );
    assert.deepEqual(
      await outputsOf(roomy),
      Array.from({ length: 24 }, (_, n) => `small ${n}`),
    );
    // Each stored batch says after which id its lines begin: followers read from there.
    const firstIds = await logsOf(roomy);
    assert.deepEqual(
      roomyOutcomes.map((o) => (o?.stored ? o.after + 1 : undefined)),
      firstIds.map((row) => row.id),
    );
    assert.deepEqual(
      [fullOutcomes[0], roomyOutcomes[0]].map((o) => o?.stored && o.first),
      [true, true],
      'the first batch of each agent is its first logs',
    );
    const row = await test.daemon.store.db
      .selectFrom('workspace_agents')
      .select(['logs_length', 'logs_overflowed'])
      .where('id', '=', full)
      .executeTakeFirstOrThrow();
    assert.deepEqual([row.logs_length, row.logs_overflowed], [MAX_AGENT_LOGS_BYTES, 1]);
  });

  it('answers a failure to the batch that caused it alone, and stores the others of its group', async () => {
    const agent = agentIds[2];
    assert.ok(agent);
    const writer = test.daemon.store.agentLogWriter;
    // A source without a name breaks the group's transaction; the others are stored on their own.
    const broken = batchOf(['broken'], { id: 'a-source', display_name: null as unknown as string, icon: '', created_at: AT });
    const results = await Promise.allSettled([
      writer.append(agent, batchOf(['before'])),
      writer.append(agent, broken),
      writer.append('no-such-agent', batchOf(['nobody'])),
      writer.append(agent, batchOf(['after'])),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.equal(results[2]?.status === 'fulfilled' && results[2].value, undefined, 'an agent that is gone stores nothing');
    assert.deepEqual(await outputsOf(agent), ['before', 'after']);
  });
});
