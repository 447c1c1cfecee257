import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError, rawRequest } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** The apply step records this state; later builds without a state of their own carry the previous one. */
const ECHO = { apply: { resources: [{ name: 'box', type: 'echo' }], start: { state: '{"version":4,"serial":1}' } } };

describe('the provisioner state of workspace builds', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  let templateId: string;

  async function finished(client: CoveClient, buildId: string) {
    await client.followWorkspaceBuildLogs(buildId, () => undefined);
    return client.workspaceBuild(buildId);
  }

  async function memberWorkspace(name: string) {
    const workspace = await member.createWorkspace('me', { name, template_id: templateId });
    await finished(member, workspace.latest_build.id);
    return workspace;
  }

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    member = await createMember(test, 'member');
    templateId = (await createEchoTemplate(owner, 'stateful', ECHO)).template.id;
  });
  after(async () => test.close());

  it('replaces a build’s state in place for template managers, and the next build starts from it', async () => {
    const workspace = await memberWorkspace('in-place');
    const build = workspace.latest_build.id;
    assert.equal((await owner.workspaceBuildState(build)).toString(), '{"version":4,"serial":1}');
    await owner.updateWorkspaceBuildState(build, Buffer.from('{"serial":2}'));
    assert.equal((await owner.workspaceBuildState(build)).toString(), '{"serial":2}');
    // The stop's apply step records no state: the echo provisioner hands the previous one on.
    const stop = await member.createWorkspaceBuild(workspace.id, { transition: 'stop' });
    await finished(member, stop.id);
    assert.equal((await owner.workspaceBuildState(stop.id)).toString(), '{"serial":2}');
  });

  it('refuses the workspace owner who does not manage the template, and state that is not base64', async () => {
    const workspace = await memberWorkspace('refused');
    const build = workspace.latest_build.id;
    await expectApiError(member.updateWorkspaceBuildState(build, Buffer.from('{}')), 403);
    assert.equal((await owner.workspaceBuildState(build)).toString(), '{"version":4,"serial":1}', 'unchanged');
    const bad = await rawRequest(test.url, 'PUT', `/workspacebuilds/${build}/state`, {
      body: JSON.stringify({ state: 'not base64!' }),
      headers: { 'content-type': 'application/json', 'Service-Session-Token': owner.token ?? '' },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      (bad.body['validations'] as { field: string }[]).map((v) => v.field),
      ['state'],
    );
  });

  it('builds from a given state for template managers only', async () => {
    const workspace = await memberWorkspace('given');
    const state = Buffer.from('{"serial":9}').toString('base64');
    await expectApiError(member.createWorkspaceBuild(workspace.id, { transition: 'stop', state }), 403, /Only template managers/);
    const stop = await owner.createWorkspaceBuild(workspace.id, { transition: 'stop', state });
    await finished(owner, stop.id);
    assert.equal((await owner.workspaceBuildState(stop.id)).toString(), '{"serial":9}');
  });
});
