import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const line = (output: string) => ({ created_at: '2026-01-05T10:00:00.000Z', level: 'info' as const, output });

/** A template whose builds run agents with these tokens. */
async function templateWithAgents(owner: CoveClient, name: string, tokens: readonly string[]): Promise<string> {
  const agents = tokens.map((token, i) => ({ name: `a${i}`, auth_token: token, directory: '' }));
  const { template } = await createEchoTemplate(owner, name, { apply: { resources: [{ name: 'box', type: 'echo', agents }] } });
  return template.id;
}

async function finished(client: CoveClient, build: WorkspaceBuild): Promise<WorkspaceBuild> {
  await client.followWorkspaceBuildLogs(build.id, () => undefined);
  return client.workspaceBuild(build.id);
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
