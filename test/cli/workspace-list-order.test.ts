import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Workspace } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('cove ls: favorites first, then started workspaces, then by name; a favorite column', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  const user = new CliUser();
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    const { template } = await createEchoTemplate(owner, 'plain', {});
    const made: Record<string, Workspace> = {};
    for (const name of ['alpha', 'Beta', 'gamma', 'delta']) {
      made[name] = await owner.createWorkspace('me', { name, template_id: template.id });
      await owner.followWorkspaceBuildLogs(made[name].latest_build.id, () => undefined);
    }
    const stop = await owner.createWorkspaceBuild(made['alpha']?.id ?? '', { transition: 'stop' });
    await owner.followWorkspaceBuildLogs(stop.id, () => undefined);
    await owner.favoriteWorkspace(made['gamma']?.id ?? '');
    const login = await user.run('login', test.url, '--token', owner.token ?? '');
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => test.close());

  it('orders as the reference does, and -o json keeps the API favorite field', async () => {
    const result = await user.run('ls', '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    const rows = JSON.parse(result.stdout) as Workspace[];
    assert.deepEqual(
      rows.map((w) => w.name),
      ['gamma', 'Beta', 'delta', 'alpha'],
    );
    assert.deepEqual(
      rows.map((w) => w.favorite),
      [true, false, false, false],
    );
  });

  it('-c favorite shows a star for favorites and nothing for the others', async () => {
    const result = await user.run('ls', '-c', 'favorite,workspace,status');
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^FAVORITE\s+WORKSPACE\s+STATUS$/);
    assert.match(lines[1] ?? '', /^★\s+gamma\s+running$/);
    assert.match(lines[4] ?? '', /^\s+alpha\s+stopped$/);
  });
});
