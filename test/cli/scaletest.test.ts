import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { ScaletestReport } from '../../src/cli/scaletest/scaletest-report.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** The operation of a report, which must be there. */
function operation(report: ScaletestReport, name: string): ScaletestReport['operations'][number] {
  const found = report.operations.find((op) => op.operation === name);
  assert.ok(found, `no "${name}" in ${report.operations.map((op) => op.operation).join(', ')}`);
  return found;
}

describe('cove scaletest', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let cli: CliUser;
  let runId = '';

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '2', prometheusEnable: 'true', prometheusAddress: '127.0.0.1:0' } });
    owner = await createOwner(test);
    cli = new CliUser({ COVE_URL: test.url, COVE_SESSION_TOKEN: owner.token ?? '' });
  });
  after(async () => {
    await test.close();
  });

  it('create-workspaces makes users and workspaces whose simulated agents connect', async () => {
    const result = await cli.run(
      'scaletest',
      'create-workspaces',
      '--count',
      '3',
      '--simulated-agents',
      '--metrics-url',
      `${test.daemon.metricsUrl}/metrics`,
      '-o',
      'json',
    );
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as ScaletestReport;
    runId = report.run_id;
    assert.match(runId, /^[0-9a-f]{8}$/);
    assert.equal(report.details['workspaces_created'], 3);
    assert.equal(report.details['agents_connected'], 3);
    assert.equal(operation(report, 'create user').count, 3);
    assert.equal(operation(report, 'build').count, 3);
    assert.equal(report.total.errors, 0);
    assert.ok(report.daemon && report.daemon.rss_bytes > 10e6, JSON.stringify(report.daemon));
    const workspaces = await owner.workspaces({ q: `name:scaletest-${runId}` });
    assert.deepEqual(
      workspaces.workspaces.map((w) => w.owner_name).sort(),
      [1, 2, 3].map((i) => `scaletest-${runId}-${i}`),
    );
  });

  it('workspace-traffic measures the echo of every terminal through the relay', async () => {
    const result = await cli.run(
      'scaletest',
      'workspace-traffic',
      '--run',
      runId,
      '--simulated-agents',
      '--duration',
      '3s',
      '--tick-interval',
      '100ms',
      '--bytes-per-tick',
      '200',
      '-o',
      'json',
    );
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as ScaletestReport;
    const echo = operation(report, 'echo');
    assert.equal(report.details['connections'], 3);
    // Three terminals, ten ticks a second each, for three seconds (less the random start).
    assert.ok(echo.count >= 60 && echo.count <= 93, String(echo.count));
    assert.ok(echo.p50_ms > 0 && echo.p95_ms >= echo.p50_ms, JSON.stringify(echo));
    assert.equal(report.total.errors, 0, JSON.stringify(report.operations));
    assert.equal(report.details['bytes_received'], report.details['bytes_sent']);
  });

  it('dashboard loads the pages as each user, and --max-p95 fails a run that breaks it', async () => {
    const result = await cli.run(
      'scaletest',
      'dashboard',
      '--run',
      runId,
      '--count',
      '2',
      '--interval',
      '500ms',
      '--duration',
      '2s',
      '--max-p95',
      '0.001',
      '-o',
      'json',
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /Bound broken: --max-p95 0\.001 ms: GET \/\S+ p95 was/);
    const report = JSON.parse(result.stdout) as ScaletestReport;
    assert.equal(report.details['people'], 2);
    for (const route of ['/workspaces', '/users/me', '/templates', '/entitlements', '/workspacebuilds/{id}/logs'])
      assert.ok(operation(report, `GET ${route}`).count >= 2, route);
    assert.equal(report.total.errors, 0, JSON.stringify(report.operations));
    assert.ok(report.broken.length > 0);
    assert.ok(operation(report, 'GET /workspaces').p95_ms > 0);
  });

  it("cleanup deletes the run's workspaces and users and leaves nothing", async () => {
    const result = await cli.run('scaletest', 'cleanup', '--run', runId, '--max-errors', '0', '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as ScaletestReport;
    assert.deepEqual(
      [report.details['workspaces_deleted'], report.details['users_deleted'], report.details['template_deleted']],
      [3, 3, true],
    );
    assert.equal((await owner.workspaces({ q: 'name:scaletest-' })).workspaces.length, 0);
    assert.deepEqual((await owner.users({ q: 'scaletest-' })).users, []);
    assert.ok(!(await owner.templates()).some((t) => t.name === 'scaletest-simulated'));
  });

  it('says what to do when there is nothing to load', async () => {
    const result = await cli.run('scaletest', 'workspace-traffic', '--simulated-agents');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /There are no scale test workspaces/);
    assert.match(result.stderr, /create-workspaces/);
  });
});
