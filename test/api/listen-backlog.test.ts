import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

/**
 * The daemon's listener holds as many connections waiting to be accepted as the system allows:
 * with Node's default of 511, a team's browsers connecting at once had their attempts dropped and
 * retried by TCP a second (then three, then seven) later.
 */
describe('the HTTP listener', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  let test: TestDaemon | undefined;
  before(async () => {
    test = await startTestDaemon();
  });
  after(() => test?.close());

  it("queues as many connections as net.core.somaxconn allows, not Node's 511", () => {
    assert.ok(test);
    const port = new URL(test.url).port;
    // For a listening socket, ss shows the length of its accept queue as Send-Q.
    const listening = spawnSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' });
    assert.equal(listening.status, 0, `ss: ${listening.stderr}`);
    const sendQ = Number(listening.stdout.trim().split(/\s+/)[2]);
    const allowed = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim());
    assert.ok(allowed > 511, `this machine allows only ${allowed}`);
    assert.equal(sendQ, allowed, listening.stdout);
  });
});
