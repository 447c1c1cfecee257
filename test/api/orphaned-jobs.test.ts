import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WebSocket } from 'ws';
import { silentLogger, startDaemon, type Daemon } from '../../src/daemon/index.js';
import { resolveOptions, type RawValues } from '../../src/domain/deployment-options.js';
import { createTar } from '../../src/lib/archive/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/random.js';
import { CoveClient } from '../../src/sdk/client.js';
import { dialProvisionerDaemon } from '../../src/sdk/provisioner-daemon-socket.js';
import type { ServerMessage, TemplateVersion } from '../../src/sdk/wire/index.js';
import { NEEDS_POSTGRES } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

async function echoVersion(client: CoveClient, echo: unknown): Promise<TemplateVersion> {
  const { id } = await client.uploadFile(await createTar({ 'echo.json': JSON.stringify(echo), 'nonce.txt': newId() }));
  return client.createTemplateVersion('default', { file_id: id });
}

/**
 * A provisioner daemon speaking the job protocol by hand, so a test decides when it goes away:
 * closing its socket is what a killed daemon's connection does.
 */
async function handDaemon(test: TestDaemon, owner: CoveClient, id: string, name: string) {
  const { key } = await owner.createProvisionerKey('default', { name: `key-${newId().slice(0, 8)}` });
  const socket: WebSocket = await dialProvisionerDaemon({
    url: test.url,
    organization: 'default',
    id,
    name,
    provisioners: ['echo'],
    tags: {},
    key,
  });
  const queue: ServerMessage[] = [];
  socket.on('message', (data) => queue.push(JSON.parse(data.toString()) as ServerMessage));
  const next = () => eventually(() => queue.shift() ?? assert.fail('no message from the daemon yet'), 5000, 10);
  return {
    /** Takes the next job and says one log line about it; returns its id. */
    async take(): Promise<string> {
      socket.send(JSON.stringify({ type: 'acquire' }));
      const message = await next();
      assert.equal(message.type, 'job');
      const jobId = message.type === 'job' ? message.job.job_id : '';
      const log = {
        created_at: test.clock.now().toISOString(),
        level: 'info',
        source: 'provisioner',
        stage: 'Setting up',
        output: 'working',
      };
      socket.send(JSON.stringify({ type: 'update', job_id: jobId, logs: [log] }));
      assert.equal((await next()).type, 'update_ack');
      return jobId;
    },
    /** Finishes an import job with an empty result. */
    async completeImport(jobId: string): Promise<void> {
      const result = { type: 'template_version_import', readme: '', variables: [], parameters: [], presets: [], external_auth: [] };
      socket.send(JSON.stringify({ type: 'complete', job_id: jobId, result: { ...result, start_resources: [], stop_resources: [] } }));
      assert.equal((await next()).type, 'ack');
    },
    /** Drops the connection, as a daemon that was killed does, and waits until the server saw it. */
    async vanish(): Promise<void> {
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.terminate();
      await closed;
    },
  };
}

describe('jobs whose provisioner daemon is gone', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '0' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('fail within a minute once their daemon stops heartbeating, and not before 45 s of silence', async () => {
    const daemonId = newId();
    const first = await handDaemon(test, owner, daemonId, 'doomed-1');
    const version = await echoVersion(owner, {});
    assert.equal(await first.take(), version.job.id);
    await first.vanish();

    test.clock.advance(40_000);
    // The same daemon comes back (through another replica, say) and goes again: it was heard from.
    await (await handDaemon(test, owner, daemonId, 'doomed-1')).vanish();
    test.clock.advance(20_000);
    await test.daemon.tasks.jobReaper.runNow();
    assert.equal((await owner.templateVersion(version.id)).job.status, 'running', 'its daemon was seen 20 s ago');

    test.clock.advance(30_000);
    await test.daemon.tasks.jobReaper.runNow();
    const failed = await owner.templateVersion(version.id);
    assert.equal(failed.job.status, 'failed');
    assert.match(failed.job.error ?? '', /provisioner daemon "doomed-1" that ran this job stopped/);
    const logs = await owner.templateVersionLogs(version.id);
    assert.ok(
      logs.some((log) => log.log_level === 'error' && log.stage === 'Setting up' && /not heard from for 45 seconds/.test(log.output)),
      JSON.stringify(logs),
    );
  });

  it('end at once when canceled, and the workspace can be stopped and deleted right away', async () => {
    const daemon = await handDaemon(test, owner, newId(), 'doomed-2');
    // The template's import is run by the hand daemon too: nothing else serves this organization.
    const imported = await echoVersion(owner, {});
    await daemon.completeImport(await daemon.take());
    const template = await owner.createTemplate('default', { name: 'gone', template_version_id: imported.id });
    const workspace = await owner.createWorkspace('me', { template_id: template.id, name: 'held' });
    assert.equal(await daemon.take(), workspace.latest_build.job.id);
    const version = await echoVersion(owner, {});
    assert.equal(await daemon.take(), version.job.id);
    await daemon.vanish();
    // Long enough for the daemon to count as gone; the reaper has not run.
    test.clock.advance(50_000);

    await owner.cancelTemplateVersion(version.id);
    assert.equal((await owner.templateVersion(version.id)).job.status, 'canceled');
    const versionLogs = await owner.templateVersionLogs(version.id);
    assert.ok(versionLogs.some((log) => /canceled at once, without it/.test(log.output)));

    await owner.cancelWorkspaceBuild(workspace.latest_build.id);
    const canceled = await owner.workspaceBuild(workspace.latest_build.id);
    assert.equal(canceled.status, 'canceled');
    assert.equal(canceled.job.status, 'canceled');
    const stop = await owner.createWorkspaceBuild(workspace.id, { transition: 'stop' });
    assert.equal(stop.status, 'pending');
    await owner.cancelWorkspaceBuild(stop.id);
    const remove = await owner.createWorkspaceBuild(workspace.id, { transition: 'delete' });
    assert.equal(remove.transition, 'delete');
    await owner.cancelWorkspaceBuild(remove.id);
  });

  it('still go through canceling while their daemon is connected', async () => {
    const daemon = await handDaemon(test, owner, newId(), 'alive-1');
    const version = await echoVersion(owner, {});
    assert.equal(await daemon.take(), version.job.id);
    test.clock.advance(50_000);
    await owner.cancelTemplateVersion(version.id);
    assert.equal((await owner.templateVersion(version.id)).job.status, 'canceling');
    await test.daemon.tasks.jobReaper.runNow();
    assert.equal((await owner.templateVersion(version.id)).job.status, 'canceling', 'connected here: hung only after 5 minutes');
    await daemon.vanish();
  });
});

/** Starts another `serve` on `test`'s database, as a restart (same data directory) or another replica. */
async function startAnother(test: TestDaemon, dataDir: string, flags: RawValues = {}): Promise<Daemon> {
  const target = test.database.target;
  return startDaemon(
    resolveOptions({
      flags: {
        httpAddress: '127.0.0.1:0',
        dataDir,
        provisionerDaemons: '0',
        ...(target.kind === 'postgres' ? { postgresUrl: target.url } : {}),
        ...flags,
      },
      env: {},
    }),
    { logger: silentLogger(), clock: new ManualClock(test.clock.now()) },
  );
}

/** A workspace build and a template import, each held mid-run by one of the built-in daemons. */
async function holdTwoJobs(owner: CoveClient, name: string) {
  const { template } = await createEchoTemplate(owner, name, { apply: { start: { hang: true } } });
  const workspace = await owner.createWorkspace('me', { template_id: template.id, name });
  const version = await echoVersion(owner, { parse: { hang: true } });
  await eventually(async () => {
    assert.equal((await owner.workspaceBuild(workspace.latest_build.id)).job.status, 'running');
    assert.equal((await owner.templateVersion(version.id)).job.status, 'running');
  });
  return { workspace, version };
}

describe('a restarted server and the jobs its built-in daemons held', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '2' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('names built-in daemons after their replica and fails, at start, the jobs they held', async () => {
    const { workspace, version } = await holdTwoJobs(owner, 'restart');
    const held = await owner.templateVersion(version.id);
    assert.match(held.job.worker_name ?? '', new RegExp(`^built-in-[12]@${test.daemon.replica.name}$`));

    // The server "restarts": a new process on the same data directory, while the old one's jobs
    // are still marked running (it never got to report them).
    const restarted = await startAnother(test, test.database.dataDir);
    try {
      assert.deepEqual(restarted.replica, test.daemon.replica);
      const client = new CoveClient({ url: restarted.url, token: owner.token });
      const failedVersion = await client.templateVersion(version.id);
      assert.equal(failedVersion.job.status, 'failed');
      assert.match(failedVersion.job.error ?? '', /that ran this job stopped \(its server restarted\)/);
      const build = await client.workspaceBuild(workspace.latest_build.id);
      assert.equal(build.status, 'failed');
      const logs = await client.workspaceBuildLogs(build.id);
      assert.ok(
        logs.some((log) => log.log_level === 'error' && /built-in-[12]@.* stopped \(its server restarted\)/.test(log.output)),
        JSON.stringify(logs),
      );
      const stop = await client.createWorkspaceBuild(workspace.id, { transition: 'stop' });
      assert.equal(stop.transition, 'stop');
    } finally {
      await restarted.close();
    }
  });
});

describe('replicas sharing a PostgreSQL database, at start', { skip: NEEDS_POSTGRES }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ database: 'postgres', flags: { provisionerDaemons: '2' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('leave alone the jobs of the other replicas', async () => {
    const { version } = await holdTwoJobs(owner, 'replicas');
    const otherDir = mkdtempSync(join(tmpdir(), 'cove-replica-'));
    const other = await startAnother(test, otherDir);
    try {
      assert.notEqual(other.replica.id, test.daemon.replica.id);
      assert.equal((await owner.templateVersion(version.id)).job.status, 'running');
    } finally {
      await other.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
