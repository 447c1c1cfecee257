import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Workspace } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * A start build runs the template's code as the workspace's owner, with their git SSH key: starting
 * someone's workspace is acting as them. An organization admin may start a member's workspace, not
 * the site owner's; stopping it reveals nothing of the owner and stays allowed.
 */
describe('nobody starts the workspace of a user above them', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let orgAdmin: CoveClient;
  let member: CoveClient;
  let templateId: string;

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    orgAdmin = await createMember(test, 'olivia');
    member = await createMember(test, 'mark');
    await owner.setMemberRoles('default', 'olivia', ['organization-admin']);
    ({
      template: { id: templateId },
    } = await createEchoTemplate(owner, 'plain', { apply: { resources: [] } }));
  });
  after(async () => test?.close());

  async function stoppedWorkspace(client: CoveClient, name: string): Promise<Workspace> {
    const workspace = await client.createWorkspace('me', { name, template_id: templateId });
    await client.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const stop = await client.createWorkspaceBuild(workspace.id, { transition: 'stop' });
    await client.followWorkspaceBuildLogs(stop.id, () => undefined);
    return workspace;
  }

  it("refuses an organization admin's start of the site owner's workspace, and leaves it stopped", async () => {
    const workspace = await stoppedWorkspace(owner, 'owners');
    await expectApiError(orgAdmin.createWorkspaceBuild(workspace.id, { transition: 'start' }), 403, /roles you cannot assign: owner/);
    assert.equal((await owner.workspace(workspace.id)).latest_build.transition, 'stop');
  });

  it("lets an organization admin start a member's workspace", async () => {
    const workspace = await stoppedWorkspace(member, 'members');
    const build = await orgAdmin.createWorkspaceBuild(workspace.id, { transition: 'start' });
    assert.equal(build.transition, 'start');
  });
});
