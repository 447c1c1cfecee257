import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('build logs: the stage a cancel interrupted is marked with a cross, not a tick', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  const user = new CliUser();
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    await createEchoTemplate(owner, 'stuck', { apply: { start: { logs: ['booting'], hang: true } } });
    const login = await user.run('login', test.url, '--token', owner.token ?? '');
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => test.close());

  it('cove create, canceled while starting: ✘ Starting workspace (canceled), then cleaning up', async () => {
    const running = user.start('create', 'dev', '--template', 'stuck', '-y');
    await eventually(() => assert.match(running.output().stdout, /booting/));
    const workspace = await owner.workspaceByOwnerAndName('me', 'dev');
    await owner.cancelWorkspaceBuild(workspace.latest_build.id);
    const result = await running.done;
    assert.equal(result.code, 1);
    assert.match(result.stderr, /was canceled/);
    assert.doesNotMatch(result.stdout, /=== ✔ Starting workspace/);
    assert.match(result.stdout, /^=== ✘ Starting workspace \[\d+ms\] \(canceled\)$/m);
    assert.match(result.stdout, /=== ✘ Starting workspace[^\n]*\n==> ⧗ Cleaning Up\n=== ✔ Cleaning Up/);
    // The stages before it did complete.
    assert.match(result.stdout, /^=== ✔ Setting up \[\d+ms\]$/m);
  });
});
