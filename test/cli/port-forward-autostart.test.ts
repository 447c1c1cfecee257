import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger, startAgent, type AgentHandle } from '../../src/agent/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const TOKEN = 'port-forward-autostart-agent';

describe('cove port-forward starts a stopped workspace, as cove ssh does', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let agent: AgentHandle | undefined;
  const user = new CliUser();
  const home = join(mkdtempSync(join(tmpdir(), 'cove-port-forward-')), 'home');
  before(async () => {
    mkdirSync(home);
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    const { template } = await createEchoTemplate(owner, 'with-agent', {
      apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: TOKEN, directory: '' }] }] },
    });
    const workspace = await owner.createWorkspace('me', { name: 'dev', template_id: template.id });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const stop = await owner.createWorkspaceBuild(workspace.id, { transition: 'stop' });
    await owner.followWorkspaceBuildLogs(stop.id, () => undefined);
    const login = await user.run('login', test.url, '--token', owner.token ?? '');
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => {
    await agent?.stop();
    await test.close();
  });

  it('--disable-autostart refuses the stopped workspace', async () => {
    const refused = await user.run('port-forward', 'dev', '--tcp', '0:9', '--disable-autostart');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Workspace "dev" is stopped\./);
  });

  it('starts it with the build on stderr, waits for the agent, then forwards', async () => {
    // The agent's token names the newest of its rows: the new build's must be newer on the test clock.
    test.clock.advance(60_000);
    const running = user.start('port-forward', 'dev', '--tcp', '0:9');
    await eventually(() => assert.match(running.output().stderr, /Waiting for the agent "main" of workspace "dev" to connect/), 30_000);
    assert.match(running.output().stderr, /Workspace "dev" is stopped; starting it\.\.\.[\s\S]*Workspace "dev" is running\./);
    agent = startAgent({
      url: test.url,
      token: TOKEN,
      logger: silentLogger,
      env: { PATH: process.env['PATH'], HOME: home, SHELL: '/bin/sh' },
    });
    await eventually(() => assert.match(running.output().stderr, /Forwarding tcp 127\.0\.0\.1:\d+ to port 9 in workspace "dev"/), 30_000);
    const done = await running.interrupt();
    assert.equal(done.code, 0, done.stderr);
    assert.equal(done.stdout, '');
  });
});
