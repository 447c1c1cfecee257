import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import { createTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { ProvisionerJob } from '../../src/sdk/wire/index.js';
import { startAgentWorkspace, type AgentWorkspace } from '../helpers/agent-workspace.js';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const AGENT_TOKEN = 'agent-token-for-the-ops-commands';
const SMTP_PASSWORD = 'smtp-password-that-must-not-leak';
const OIDC_SECRET = 'oidc-secret-that-must-not-leak';

interface SpeedtestJson {
  workspace: string;
  agent: string;
  results: {
    direction: string;
    bytes: number;
    overall: { start_time_seconds: number; end_time_seconds: number; throughput_mbits: number };
    intervals: { start_time_seconds: number; end_time_seconds: number; throughput_mbits: number }[];
  }[];
}

describe('cove speedtest, netcheck, support bundle and provisioner jobs', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let workspace: AgentWorkspace;
  let cli: CliUser;
  const work = mkdtempSync(join(tmpdir(), 'cove-ops-'));

  before(async () => {
    test = await startTestDaemon({
      flags: { provisionerDaemons: '1', emailSmtpPassword: SMTP_PASSWORD, oidcClientSecret: OIDC_SECRET },
    });
    owner = await createOwner(test);
    workspace = await startAgentWorkspace({ url: test.url, owner, member: owner, token: AGENT_TOKEN, home: join(work, 'home') });
    cli = new CliUser({
      COVE_URL: test.url,
      COVE_SESSION_TOKEN: owner.token ?? '',
      COVE_PG_CONNECTION_URL: 'postgres://cove:pg-pass-that-must-not-leak@db/cove',
    });
  });
  after(async () => {
    await workspace?.agent.stop();
    await test.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('speedtest measures both directions through the relay, per interval and in total', async () => {
    const result = await cli.run('speedtest', 'dev', '--direction', 'both', '-t', '1200ms', '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as SpeedtestJson;
    assert.equal(report.agent, 'main');
    assert.deepEqual(
      report.results.map((run) => run.direction),
      ['down', 'up'],
    );
    for (const run of report.results) {
      assert.ok(run.bytes > 1024 * 1024, `${run.direction}: more than a MiB crossed the relay (${run.bytes} bytes)`);
      assert.ok(run.overall.throughput_mbits > 0);
      assert.ok(run.overall.end_time_seconds >= 1.2, `${run.direction} ran for its duration`);
      assert.equal(run.intervals.length, 2, `${run.direction}: one interval a second`);
      assert.equal(run.intervals[0]?.end_time_seconds, 1);
    }
    const table = await cli.run('speedtest', 'dev', '-t', '300ms');
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /INTERVAL\s+THROUGHPUT/);
    assert.match(table.stdout, /0\.00-0\.\d+ sec\s+[\d.]+ Mbits\/sec \(total\)/);
    const bad = await cli.run('speedtest', 'dev', '--direction', 'sideways');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /not up, down or both/);
  });

  it('netcheck reports the round trip to the relay region', async () => {
    const result = await cli.run('netcheck', '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as {
      udp: boolean;
      preferred_region_id: number;
      regions: { region_id: number; url: string; connect_ms: number; latency_ms: number }[];
    };
    assert.equal(report.udp, false);
    assert.equal(report.preferred_region_id, 999);
    assert.equal(report.regions.length, 1);
    assert.equal(report.regions[0]?.url, test.url);
    assert.ok((report.regions[0]?.connect_ms ?? 0) > 0);
    assert.ok((report.regions[0]?.latency_ms ?? 0) > 0);
    const table = await cli.run('netcheck');
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /999 cove\s+Cove Embedded Relay\s+999b\s+http:\/\/127\.0\.0\.1:\d+\s+[\d.]+ms\s+[\d.]+ms/);
  });

  it('support bundle writes a zip of the deployment and the workspace, with no secret in it', async () => {
    const file = join(work, 'bundle.zip');
    const refused = await cli.run('support', 'bundle', 'dev', '-O', file);
    assert.equal(refused.code, 1, 'without a terminal, -y is needed');
    assert.match(refused.stderr, /needs confirmation/);

    const result = await cli.run('support', 'bundle', 'dev', '-O', file, '-y', '-o', 'json');
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout) as { file: string; files: string[]; notes: string[] };
    assert.equal(summary.file, file);
    const entries = unzipSync(readFileSync(file));
    const text = Object.fromEntries(Object.entries(entries).map(([path, bytes]) => [path, strFromU8(bytes)]));
    for (const path of [
      'README.txt',
      'deployment/buildinfo.json',
      'deployment/config.json',
      'deployment/stats.json',
      'deployment/relay-coordinator.html',
      'cli/info.json',
      'workspace/workspace.json',
      'workspace/build-logs.txt',
      'workspace/agents/main/logs.txt',
    ]) {
      assert.ok(text[path] !== undefined, `the bundle holds ${path}: ${Object.keys(text).join(', ')}`);
    }
    assert.equal((JSON.parse(text['workspace/workspace.json'] ?? '{}') as { id: string }).id, workspace.workspaceId);
    assert.match(text['workspace/build-logs.txt'] ?? '', /\S/);
    assert.equal((JSON.parse(text['cli/info.json'] ?? '{}') as { user: { username: string } }).user.username, 'owner');
    assert.match(text['README.txt'] ?? '', /daemon logs: the API serves no daemon logs/);
    // The health report is another part's: either it is in the bundle or its absence is noted.
    assert.ok(text['deployment/health.json'] !== undefined || /health:/.test(text['README.txt'] ?? ''));
    const config = JSON.parse(text['deployment/config.json'] ?? '{}') as { options: { flag: string; value: unknown }[] };
    assert.ok(config.options.some((option) => option.flag === 'email-smtp-password'));

    const token = owner.token ?? '';
    const everything = Object.values(text).join('\n');
    for (const secret of [token, token.split('-')[1] ?? token, SMTP_PASSWORD, OIDC_SECRET, 'pg-pass-that-must-not-leak', AGENT_TOKEN]) {
      assert.ok(secret.length > 8);
      assert.equal(everything.includes(secret), false, `the bundle does not hold ${secret.slice(0, 6)}…`);
    }
  });

  it('provisioner jobs lists the queue and cancels a pending job', async () => {
    // Tagged for a pool no daemon serves: the import stays pending until it is canceled.
    const { id: fileId } = await owner.uploadFile(await createTar({ 'echo.json': '{}' }));
    const version = await owner.createTemplateVersion('default', { file_id: fileId, tags: { pool: 'nowhere' } });

    const listed = await cli.run('provisioner', 'jobs', 'list', '--status', 'pending', '-o', 'json');
    assert.equal(listed.code, 0, listed.stderr);
    const pending = JSON.parse(listed.stdout) as ProvisionerJob[];
    assert.deepEqual(
      pending.map((job) => job.id),
      [version.job.id],
    );
    const table = await cli.run('provisioner', 'jobs', 'list');
    assert.match(table.stdout, /CREATED AT\s+ID\s+TYPE\s+TEMPLATE\s+WORKSPACE\s+STATUS\s+QUEUE\s+TAGS/);
    assert.match(table.stdout, new RegExp(`${version.job.id}\\s+template_version_import\\s+pending\\s+\\d+/\\d+\\s+pool=nowhere`));
    const limited = JSON.parse((await cli.run('provisioner', 'jobs', 'list', '--limit', '1', '-o', 'json')).stdout) as ProvisionerJob[];
    assert.equal(limited.length, 1);
    const badStatus = await cli.run('provisioner', 'jobs', 'list', '--status', 'stuck');
    assert.equal(badStatus.code, 1);
    assert.match(badStatus.stderr, /Unknown job status stuck/);

    const canceled = await cli.run('provisioner', 'jobs', 'cancel', version.job.id, '-o', 'json');
    assert.equal(canceled.code, 0, canceled.stderr);
    assert.equal((JSON.parse(canceled.stdout) as ProvisionerJob).status, 'canceled');
    const again = await cli.run('provisioner', 'jobs', 'cancel', version.job.id);
    assert.equal(again.code, 1, 'a finished job cannot be canceled again');
    const builds = JSON.parse((await cli.run('provisioner', 'jobs', 'list', '-o', 'json')).stdout) as ProvisionerJob[];
    assert.ok(builds.some((job) => job.type === 'workspace_build' && job.status === 'succeeded'));
  });
});
