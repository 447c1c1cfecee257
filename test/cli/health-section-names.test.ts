import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('health settings dismiss takes the section titles the report prints, and DERP', () => {
  let test: TestDaemon;
  const user = new CliUser();
  before(async () => {
    test = await startTestDaemon();
    const owner = await createOwner(test);
    const login = await user.run('login', test.url, '--token', owner.token ?? '');
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => test.close());

  it('every title of "cove health report" dismisses its section, and undismisses it', async () => {
    const report = await user.run('health', 'report', '--force');
    const titles = [...report.stdout.matchAll(/^\[\w+\] +(.+?)  +/gm)].map((match) => match[1] ?? '');
    assert.deepEqual(titles, ['Access URL', 'Database', 'WebSocket', 'Relay', 'Provisioner daemons', 'Workspace proxies']);
    for (const title of titles) {
      const dismissed = await user.run('health', 'settings', 'dismiss', title);
      assert.equal(dismissed.code, 0, `${title}: ${dismissed.stderr}`);
      const undismissed = await user.run('health', 'settings', 'undismiss', title);
      assert.equal(undismissed.code, 0, `${title}: ${undismissed.stderr}`);
    }
  });

  it('Relay and DERP are the same section, shown as dismissed in the report', async () => {
    const relay = await user.run('health', 'settings', 'dismiss', 'Relay', '-o', 'json');
    assert.equal(relay.code, 0, relay.stderr);
    assert.deepEqual((JSON.parse(relay.stdout) as { dismissed_healthchecks: string[] }).dismissed_healthchecks, ['DERP']);
    const report = await user.run('health', 'report', '--force');
    assert.match(report.stdout, /^\[\w+\] +Relay +.*\(dismissed\)$/m);
    const derp = await user.run('health', 'settings', 'undismiss', 'DERP');
    assert.equal(derp.code, 0, derp.stderr);
    assert.match(derp.stdout, /Dismissed: none\./);
  });
});
