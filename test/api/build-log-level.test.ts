import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** A stop whose log holds one debug line among its info lines. */
const ECHO = {
  apply: {
    resources: [{ name: 'box', type: 'echo' }],
    stop: { logs: [{ level: 'debug', output: 'only-with-debug' }, 'always-there'] },
  },
};

describe('POST /workspaces/{workspace}/builds with log_level', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  let templateId = '';
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    member = await createMember(test, 'member');
    templateId = (await createEchoTemplate(owner, 'debuggable', ECHO)).template.id;
  });
  after(async () => test.close());

  const outputsOf = async (client: CoveClient, buildId: string) => {
    await client.followWorkspaceBuildLogs(buildId, () => undefined);
    return (await client.workspaceBuildLogs(buildId)).map((log) => [log.log_level, log.output]);
  };

  it("keeps the provisioner's debug lines of a build that asked for them, and drops them otherwise", async () => {
    const workspace = await owner.createWorkspace('me', { name: 'debugged', template_id: templateId });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const plain = await owner.createWorkspaceBuild(workspace.id, { transition: 'stop' });
    const plainLogs = await outputsOf(owner, plain.id);
    assert.ok(plainLogs.some(([, output]) => output === 'always-there'));
    assert.ok(!plainLogs.some(([, output]) => output === 'only-with-debug'));

    await owner.followWorkspaceBuildLogs((await owner.createWorkspaceBuild(workspace.id, { transition: 'start' })).id, () => undefined);
    const debug = await owner.createWorkspaceBuild(workspace.id, { transition: 'stop', log_level: 'debug' });
    assert.ok((await outputsOf(owner, debug.id)).some(([level, output]) => level === 'debug' && output === 'only-with-debug'));
  });

  it('refuses debug logs to a member who may not read the deployment configuration', async () => {
    const workspace = await member.createWorkspace('me', { name: 'mine', template_id: templateId });
    await member.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    await expectApiError(member.createWorkspaceBuild(workspace.id, { transition: 'stop', log_level: 'debug' }), 400, /administrators/);
  });
});
