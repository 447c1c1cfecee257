import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { HealthReport } from '../../src/sdk/wire/index.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { createTestDatabase, RUN_DATABASE, serveDatabaseArgs, type TestDatabase } from '../helpers/databases.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';
import { wireProblems } from '../helpers/wire-schema.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** A `cove serve` of its own, with a user signed in to it through bin/cove. */
class Deployment {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'cove-health-data-'));
  readonly configDir = mkdtempSync(join(tmpdir(), 'cove-health-config-'));
  readonly env: Record<string, string> = { COVE_CONFIG_DIR: this.configDir, COVE_SECRET_STORE: 'file' };
  server: ChildProcess | undefined;
  database: TestDatabase | undefined;
  url = '';

  async start(...flags: string[]): Promise<void> {
    this.database = await createTestDatabase(RUN_DATABASE);
    const args = ['serve', '--http-address', '127.0.0.1:0', '--data-dir', this.dataDir, ...serveDatabaseArgs(this.database), ...flags];
    this.server = spawn(COVE, args, {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.url = await waitFor(this.server, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
    const login = this.cove(
      'login',
      this.url,
      '--first-user-email',
      'a@example.com',
      '--first-user-username',
      'admin',
      '--first-user-password',
      STRONG_PASSWORD,
    );
    assert.equal(login.code, 0, login.stderr);
  }

  cove(...args: string[]): { code: number; stdout: string; stderr: string } {
    const result = spawnSync(COVE, args, { env: { ...process.env, ...this.env }, encoding: 'utf8', timeout: 60_000 });
    return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  }

  async close(): Promise<void> {
    await stop(this.server);
    await this.database?.drop();
    rmSync(this.dataDir, { recursive: true, force: true });
    rmSync(this.configDir, { recursive: true, force: true });
  }
}

/** The fields the spec names for the report and each of its sections. */
const SPEC_FIELDS: Readonly<Record<string, readonly string[]>> = {
  '': [
    'time',
    'healthy',
    'severity',
    'service_version',
    'access_url',
    'database',
    'derp',
    'provisioner_daemons',
    'websocket',
    'workspace_proxy',
  ],
  access_url: ['access_url', 'healthz_response', 'reachable', 'status_code'],
  database: ['latency', 'latency_ms', 'threshold_ms', 'reachable'],
  websocket: ['body', 'code'],
  // `netcheck_err` too, left out (as the reference does) while the network check has not failed.
  derp: ['netcheck', 'netcheck_logs', 'regions'],
  provisioner_daemons: ['items'],
  workspace_proxy: ['workspace_proxies'],
};
// `error` is left out when a check found none, as the reference's server leaves it out.
const SECTION_FIELDS = ['dismissed', 'healthy', 'severity', 'warnings'];
const NODE_FIELDS = [
  'can_exchange_messages',
  'uses_websocket',
  'healthy',
  'client_errs',
  'client_logs',
  'node',
  'node_info',
  'round_trip_ping',
  'round_trip_ping_ms',
  'severity',
  'stun',
  'warnings',
];

describe('cove health on a fresh serve', () => {
  const deployment = new Deployment();
  before(async () => deployment.start());
  after(async () => deployment.close());

  it('shows every section healthy and exits 0', () => {
    const result = deployment.cove('health', 'report');
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.match(result.stdout, /^Health: healthy \(ok\)/);
    for (const title of ['Access URL', 'Database', 'WebSocket', 'Relay', 'Provisioner daemons', 'Workspace proxies']) {
      assert.match(result.stdout, new RegExp(`^\\[ok\\] +${title} `, 'm'), result.stdout);
    }
    assert.match(result.stdout, /median round trip [\d.]+(ns|µs|ms) \(threshold 15ms\)/);
    assert.match(result.stdout, /round trip [\d.]+(µs|ms|s) through Cove Embedded Relay/);
  });

  it('prints the report as the API gives it with -o json, with the fields the spec names', () => {
    const result = deployment.cove('health', 'report', '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as Record<string, Record<string, unknown>>;
    assert.deepEqual(wireProblems(HealthReport, report), []);
    for (const [section, fields] of Object.entries(SPEC_FIELDS)) {
      const object = section === '' ? report : report[section];
      for (const field of [...fields, ...(section === '' ? [] : SECTION_FIELDS)])
        assert.ok(object && field in object, `${section}.${field}`);
      if (section !== '') assert.ok(object && !('error' in object), `${section}.error is left out when empty`);
    }
    const node = (report['derp']?.['regions'] as Record<string, { node_reports: Record<string, unknown>[] }>)['999']?.node_reports[0];
    for (const field of NODE_FIELDS) assert.ok(node && field in node, `node report ${field}`);
    assert.equal(node?.['uses_websocket'], true);
    assert.deepEqual(node?.['stun'], { Enabled: false, CanSTUN: false, Error: null });
  });

  it('redraws with --watch on a terminal until interrupted', async () => {
    const terminal = pty.spawn(COVE, ['health', 'report', '--watch', '--interval', '1'], {
      cols: 120,
      rows: 30,
      env: { ...process.env, ...deployment.env },
    });
    let output = '';
    terminal.onData((data) => (output += data));
    const exited = new Promise<number>((resolvePromise) => terminal.onExit(({ exitCode }) => resolvePromise(exitCode)));
    const deadline = Date.now() + 60_000;
    while (!/\(3\), again every 1s/.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    terminal.write('\x03');
    assert.equal(await exited, 0, output);
    // Three drawings of the report, each after erasing the one before, in color.
    assert.ok((output.match(/Provisioner daemons/g) ?? []).length >= 3, output);
    assert.match(output, /\u001b\[2K\u001b\[1A/);
    assert.match(output, /\u001b\[32m✔ /);
  });
});

describe('cove health without provisioner daemons', () => {
  const deployment = new Deployment();
  before(async () => deployment.start('--provisioner-daemons', '0'));
  after(async () => deployment.close());

  it('shows the provisioner section at error with EPD01 and exits 1, until the section is dismissed', () => {
    const result = deployment.cove('health', 'report');
    assert.equal(result.code, 1, result.stderr + result.stdout);
    assert.match(result.stdout, /^Health: unhealthy \(error\)/);
    assert.match(result.stdout, /^\[error\] +Provisioner daemons +none active\n +EPD01: No active provisioner daemons found!$/m);
    assert.match(result.stdout, /^\[ok\] +Database /m);

    const dismissed = deployment.cove('health', 'settings', 'dismiss', 'provisioner_daemons');
    assert.equal(dismissed.code, 0, dismissed.stderr);
    const after = deployment.cove('health', 'report');
    assert.equal(after.code, 0, after.stdout);
    assert.match(after.stdout, /^Health: healthy \(ok\)/);
    assert.match(after.stdout, /^\[error\] +Provisioner daemons +none active \(dismissed\)$/m);
    assert.deepEqual(JSON.parse(deployment.cove('health', 'settings', '-o', 'json').stdout), {
      dismissed_healthchecks: ['ProvisionerDaemons'],
    });
    assert.equal(deployment.cove('health', 'settings', 'undismiss', 'ProvisionerDaemons').code, 0);
    assert.equal(deployment.cove('health', 'report').code, 1);
    const unknown = deployment.cove('health', 'settings', 'dismiss', 'Everything');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /"Everything" is not a section of the health report/);
  });

  it('exits 2 when the deployment cannot be reached', async () => {
    // A port that was free a moment ago: nothing listens there now.
    const port = await new Promise<number>((resolvePromise) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolvePromise(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const result = deployment.cove('health', 'report', '--url', `http://127.0.0.1:${port}`, '--token', 'x');
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /Could not reach the deployment/);
  });
});
