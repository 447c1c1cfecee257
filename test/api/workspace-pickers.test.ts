import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template, WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** A template with a mutable parameter, an immutable one and an ephemeral one. */
const ECHO = {
  parse: {
    parameters: [
      { name: 'size', type: 'number', default_value: '2', mutable: true },
      { name: 'region', type: 'string', default_value: 'eu', mutable: false },
      { name: 'rebuild', type: 'bool', default_value: 'false', mutable: true, ephemeral: true },
    ],
  },
  apply: {
    resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }],
    start: { state: 'started' },
    stop: { state: 'stopped' },
  },
};

async function finished(client: CoveClient, build: WorkspaceBuild): Promise<void> {
  await client.followWorkspaceBuildLogs(build.id, () => undefined);
}

describe('what the create form and the sharing dialog offer: autofill parameters, available users', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let bob: CoveClient;
  let template: Template;

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
    ({ template } = await createEchoTemplate(owner, 'echo', ECHO));
  });
  after(async () => test.close());

  it('GET /users/{user}/autofill-parameters answers the last values the user gave, without ephemeral ones', async () => {
    assert.deepEqual(await alice.autofillParameters(template.id), []);
    const created = await alice.createWorkspace('me', {
      name: 'dev',
      template_id: template.id,
      rich_parameter_values: [
        { name: 'size', value: '3' },
        { name: 'region', value: 'us' },
      ],
    });
    await finished(alice, created.latest_build);
    const rebuilt = await alice.createWorkspaceBuild(created.id, {
      transition: 'start',
      rich_parameter_values: [
        { name: 'size', value: '5' },
        { name: 'rebuild', value: 'true' },
      ],
    });
    await finished(alice, rebuilt);
    const values = new Map((await alice.autofillParameters(template.id)).map((p) => [p.name, p.value]));
    assert.equal(values.get('size'), '5');
    assert.equal(values.get('region'), 'us');
    assert.equal(values.has('rebuild'), false, 'ephemeral values are never offered again');
    // Bob has built nothing; his past values are his alone.
    assert.deepEqual(await bob.autofillParameters(template.id), []);
    const aliceId = (await alice.user('me')).id;
    await expectApiError(bob.autofillParameters(template.id, aliceId), 404);
    assert.equal(new Map((await owner.autofillParameters(template.id, aliceId)).map((p) => [p.name, p.value])).get('size'), '5');
    await expectApiError(alice.autofillParameters('not-a-uuid'), 400, /template_id/);
  });

  it('GET /workspaces/{id}/available-users lists the other active members, filtered by q and limit', async () => {
    const { workspaces } = await alice.workspaces({ q: 'owner:me' });
    const workspace = workspaces[0];
    assert.ok(workspace);
    const all = await alice.workspaceAvailableUsers(workspace.id);
    const names = all.map((u) => u.username);
    assert.ok(names.includes('bob'));
    assert.ok(!names.includes('alice'), 'the owner is not offered their own workspace');
    assert.ok(all.length >= 2, 'the site owner is a member too');
    for (const user of all) {
      assert.deepEqual(
        Object.keys(user).filter((k) => !['id', 'username', 'name', 'avatar_url'].includes(k)),
        [],
      );
    }
    assert.deepEqual(
      (await alice.workspaceAvailableUsers(workspace.id, { q: 'BO' })).map((u) => u.username),
      ['bob'],
    );
    assert.equal((await alice.workspaceAvailableUsers(workspace.id, { limit: 1 })).length, 1);
    // Bob may not read Alice's workspace: it does not exist for him.
    await expectApiError(bob.workspaceAvailableUsers(workspace.id), 404);
    assert.ok((await owner.workspaceAvailableUsers(workspace.id)).some((u) => u.username === 'bob'));
  });
});
