import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocketServer } from 'ws';
import type { ScaletestReport } from '../../src/cli/scaletest/scaletest-report.js';
import { startAgentWorkspace, type AgentWorkspace } from '../helpers/agent-workspace.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { CliUser } from '../helpers/run-cli.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const RUN = 'a1b2c3d4';
const NAME = `scaletest-${RUN}-1`;

/**
 * `cove scaletest workspace-traffic` over SSH and through an app, against a workspace whose agent
 * runs for real on this machine (the traffic modes simulated agents do not serve): a run's user,
 * their workspace, an app in it that echoes over WebSocket.
 */
describe('cove scaletest workspace-traffic with a real agent', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  let test: TestDaemon | undefined;
  let workspace: AgentWorkspace | undefined;
  let echoApp: WebSocketServer | undefined;
  let home = '';
  let cli: CliUser;

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    const owner = await createOwner(test);
    const member = await createMember(test, NAME);
    // The app inside the workspace: the agent runs here, so the workspace's loopback is this one.
    echoApp = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    echoApp.on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })));
    await new Promise<void>((resolve) => echoApp?.once('listening', resolve));
    const port = (echoApp.address() as AddressInfo).port;
    home = await mkdtemp(join(tmpdir(), 'cove-scaletest-agents-'));
    workspace = await startAgentWorkspace({
      url: test.url,
      owner,
      member,
      token: 'f5e4d3c2-0000-4000-8000-00000000a9e1',
      home,
      name: NAME,
      templateName: 'scaletest-real',
      agent: { apps: [{ slug: 'echo', display_name: 'Echo', url: `http://127.0.0.1:${port}`, subdomain: false }] },
    });
    cli = new CliUser({ COVE_URL: test.url, COVE_SESSION_TOKEN: owner.token ?? '' });
  });
  after(async () => {
    echoApp?.close();
    await workspace?.agent.stop();
    await test?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const traffic = async (...mode: string[]): Promise<ScaletestReport> => {
    const result = await cli.run(
      'scaletest',
      'workspace-traffic',
      '--run',
      RUN,
      ...mode,
      '--duration',
      '3s',
      '--tick-interval',
      '100ms',
      '--bytes-per-tick',
      '300',
      '-o',
      'json',
    );
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as ScaletestReport;
  };

  const assertEchoed = (report: ScaletestReport, opened: string): void => {
    const names = report.operations.map((op) => op.operation);
    assert.deepEqual(names.sort(), ['echo', opened].sort(), JSON.stringify(report.operations));
    const echo = report.operations.find((op) => op.operation === 'echo');
    assert.ok(echo);
    // Ten ticks a second for three seconds, less the random start.
    assert.ok(echo.count >= 20 && echo.count <= 31, String(echo.count));
    assert.ok(echo.p95_ms > 0, JSON.stringify(echo));
    assert.equal(report.total.errors, 0, JSON.stringify(report.operations));
    assert.equal(report.details['connections'], 1);
    assert.ok(Number(report.details['bytes_sent']) >= 20 * 300, JSON.stringify(report.details));
    assert.equal(report.details['bytes_received'], report.details['bytes_sent']);
  };

  it('sends the traffic over SSH: a session running cat echoes every line', async () => {
    const report = await traffic('--ssh');
    assert.equal(report.details['traffic'], 'ssh');
    assertEchoed(report, 'open ssh');
  });

  it("sends the traffic through the workspace's app over WebSocket", async () => {
    const report = await traffic('--app', 'echo');
    assert.equal(report.details['traffic'], 'app echo');
    assertEchoed(report, 'open app');
  });

  it('names an app the workspace does not have', async () => {
    const result = await cli.run('scaletest', 'workspace-traffic', '--run', RUN, '--app', 'missing', '--duration', '1s', '-o', 'json');
    assert.equal(result.code, 1, result.stdout);
    const { error } = JSON.parse(result.stderr) as { error: { message: string; hint: string } };
    assert.match(
      error.message,
      /^None of the 1 connections opened \(scaletest-a1b2c3d4-1\/scaletest-a1b2c3d4-1: the app missing refused the WebSocket \(HTTP 404\)\)\.$/,
    );
    assert.match(error.hint, /has the app "missing"/);
  });
});
