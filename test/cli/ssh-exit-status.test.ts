import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace, type AgentWorkspace } from '../helpers/agent-workspace.js';
import { eventually } from '../helpers/eventually.js';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

describe('cove ssh exits as OpenSSH does', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let workspace: AgentWorkspace;
  const user = new CliUser();
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    const home = join(mkdtempSync(join(tmpdir(), 'cove-ssh-exit-')), 'home');
    mkdirSync(home);
    workspace = await startAgentWorkspace({ url: test.url, owner, member: owner, token: 'ssh-exit-status-agent', home });
    const login = await user.run('login', test.url, '--token', owner.token ?? '');
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => {
    await workspace.agent.stop();
    await test.close();
  });

  it("the remote command's status", async () => {
    assert.equal((await user.run('ssh', 'dev', '--', 'exit 3')).code, 3);
    assert.equal((await user.run('ssh', 'dev', '--', 'true')).code, 0);
  });

  it('128+N when the remote process dies of signal N', async () => {
    const terminated = await user.run('ssh', 'dev', '--', 'kill -TERM $$');
    assert.equal(terminated.code, 143, terminated.stderr);
    const killed = await user.run('ssh', 'dev', '--', 'kill -KILL $$');
    assert.equal(killed.code, 137, killed.stderr);
  });

  it('a typing mistake stays status 1', async () => {
    const unknown = await user.run('ssh', 'dev.other', '--', 'true');
    assert.equal(unknown.code, 1);
  });

  it('255 when the connection fails: the agent is gone', async () => {
    await workspace.agent.stop();
    await eventually(async () => assert.notEqual((await owner.workspaceAgent(workspace.agentId)).status, 'connected'), 30_000);
    const gone = await user.run('ssh', 'dev', '--', 'true');
    assert.equal(gone.code, 255, gone.stderr);
    assert.match(gone.stderr, /^error: The agent "main" of workspace "dev" is (disconnected|timeout)\.$/m);
  });
});
