import assert from 'node:assert/strict';
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newApiKey } from '../../src/domain/sessions.js';
import { createTar } from '../../src/lib/archive/index.js';
import { newId } from '../../src/lib/random.js';
import { SYSTEM_SUBJECTS } from '../../src/rbac/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { capturingLogger, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const DAY_MS = 24 * 60 * 60 * 1000;

async function readLines(file: string): Promise<Record<string, unknown>[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
const MINUTE_MS = 60_000;

/** An echo template whose builds make one agent, `main`. */
const WITH_AGENT = {
  apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: 'retention-agent-token', directory: '' }] }] },
};

/** The purge's report of each run, as logged at info. */
type Purged = Record<string, { rows: number; batches: number }>;

function purgeReports(lines: string[]): Purged[] {
  return lines
    .map((line) => JSON.parse(line) as { msg?: string; purged?: Purged })
    .filter((entry) => entry.msg === 'purged rows past their retention')
    .map((entry) => entry.purged ?? {});
}

function auditRow(time: string, target: string) {
  return {
    id: newId(),
    time,
    user_id: null,
    organization_id: '',
    ip: '',
    user_agent: '',
    resource_type: 'template',
    resource_id: '',
    resource_target: target,
    resource_icon: '',
    action: 'write',
    diff: '{}',
    status_code: 200,
    additional_fields: '{}',
    request_id: '',
  };
}

async function insertAuditRows(test: TestDaemon, rows: ReturnType<typeof auditRow>[]): Promise<void> {
  // In chunks: each statement's parameters stay under both databases' limits.
  for (let start = 0; start < rows.length; start += 500)
    await test.daemon.store.db
      .insertInto('audit_logs')
      .values(rows.slice(start, start + 500))
      .execute();
}

async function insertConnection(test: TestDaemon, connectTime: string, workspaceName: string): Promise<string> {
  const id = newId();
  await test.daemon.store.db
    .insertInto('connection_logs')
    .values({
      id,
      connect_time: connectTime,
      organization_id: test.daemon.identity.defaultOrganization.id,
      workspace_owner_id: newId(),
      workspace_id: newId(),
      workspace_name: workspaceName,
      agent_name: 'main',
      type: 'ssh',
      ip: '127.0.0.1',
      user_id: null,
      user_agent: '',
      slug_or_port: '',
      code: 0,
      connection_id: id,
      disconnect_time: connectTime,
      disconnect_reason: '',
      bytes_to_workspace: 10,
      bytes_from_workspace: 20,
      replica_id: '',
    })
    .execute();
  return id;
}

async function insertUsageMinute(test: TestDaemon, userId: string, templateId: string, at: Date): Promise<number> {
  const minute = Math.floor(at.getTime() / MINUTE_MS);
  await test.daemon.store.db
    .insertInto('workspace_usage_minutes')
    .values({
      user_id: userId,
      template_id: templateId,
      minute,
      kind: 'ssh',
      app_slug: '',
      app_display_name: '',
      app_icon: '',
      latency_ms: 0,
    })
    .execute();
  return minute;
}

async function insertApiKey(test: TestDaemon, userId: string, name: string, lifetimeMs: number): Promise<string> {
  const { row } = newApiKey({
    userId,
    loginType: 'token',
    scope: 'all',
    lifetimeMs,
    tokenName: name,
    ipAddress: '',
    now: test.clock.now(),
  });
  await test.daemon.store.db.insertInto('api_keys').values(row).execute();
  return row.id;
}

async function insertJobLog(test: TestDaemon, jobId: string): Promise<void> {
  await test.daemon.store.db
    .insertInto('provisioner_job_logs')
    .values({
      job_id: jobId,
      created_at: test.clock.now().toISOString(),
      source: 'provisioner',
      level: 'info',
      stage: 'retention',
      output: 'kept?',
    })
    .execute();
}

async function insertAgentLog(test: TestDaemon, agentId: string): Promise<void> {
  await test.daemon.store.db
    .insertInto('workspace_agent_logs')
    .values({ agent_id: agentId, log_source_id: newId(), created_at: test.clock.now().toISOString(), level: 'info', output: 'kept?' })
    .execute();
}

async function count(test: TestDaemon, table: 'audit_logs' | 'connection_logs' | 'api_keys' | 'workspace_usage_minutes'): Promise<number> {
  const row = await test.daemon.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function ids(test: TestDaemon, table: 'audit_logs' | 'connection_logs' | 'api_keys'): Promise<Set<string>> {
  return new Set((await test.daemon.store.db.selectFrom(table).select('id').execute()).map((row) => row.id));
}

async function jobLogCount(test: TestDaemon, jobId: string): Promise<number> {
  const rows = await test.daemon.store.db
    .selectFrom('provisioner_job_logs')
    .select('id')
    .where('job_id', '=', jobId)
    .where('stage', '=', 'retention')
    .execute();
  return rows.length;
}

async function agentLogCount(test: TestDaemon, agentId: string): Promise<number> {
  return (await test.daemon.store.db.selectFrom('workspace_agent_logs').select('id').where('agent_id', '=', agentId).execute()).length;
}

/** The id of the one agent a build made. */
async function agentOf(client: CoveClient, buildId: string): Promise<string> {
  const agent = (await client.workspaceBuild(buildId)).resources.flatMap((resource) => resource.agents)[0];
  assert.ok(agent, 'the build made an agent');
  return agent.id;
}

async function build(client: CoveClient, workspaceId: string, transition: 'start' | 'stop'): Promise<{ id: string; jobId: string }> {
  const made = await client.createWorkspaceBuild(workspaceId, { transition });
  await client.followWorkspaceBuildLogs(made.id, () => undefined);
  const done = await client.workspaceBuild(made.id);
  assert.equal(done.job.status, 'succeeded');
  return { id: done.id, jobId: done.job.id };
}

for (const dialect of TEST_DIALECTS) {
  describe(`retention purges by the daemon's clock (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let lines: () => string[];

    before(async () => {
      const captured = capturingLogger();
      lines = captured.lines;
      test = await startTestDaemon({
        database: dialect,
        logger: captured.logger,
        // Sessions outlive the months the test moves through; each retention at its default.
        flags: { provisionerDaemons: '1', sessionDurationMs: '100000h' },
      });
      owner = await createOwner(test);
    });
    after(async () => test?.close());

    it("deletes each kind past its retention in batches, and keeps newer rows and the latest build's and active version's logs", async () => {
      // The run at start found nothing; it is over before the rows below exist.
      await test.daemon.tasks.retention.runNow();
      const ownerId = (await owner.user('me')).id;
      const first = await createEchoTemplate(owner, 'kept-logs', WITH_AGENT);
      const workspace = await owner.createWorkspace('me', { name: 'dev', template_id: first.template.id });
      await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
      const oldAgent = await agentOf(owner, workspace.latest_build.id);
      const second = await createEchoTemplate(owner, 'second-version', WITH_AGENT);
      // The template's active version moves on: the first import's logs are an old version's.
      const { id: fileId } = await owner.uploadFile(await createTar({ 'echo.json': JSON.stringify(WITH_AGENT) }));
      const next = await owner.createTemplateVersion('default', { file_id: fileId, template_id: first.template.id });
      await owner.followTemplateVersionLogs(next.id, () => undefined);
      await owner.promoteTemplateVersion(first.template.id, next.id);
      const stop = await build(owner, workspace.id, 'stop');
      const latest = await build(owner, workspace.id, 'start');
      const latestAgent = await agentOf(owner, latest.id);

      const firstImportJob = first.version.job.id;
      const activeImportJob = (await owner.templateVersion(next.id)).job.id;
      const firstBuildJob = (await owner.workspaceBuild(workspace.latest_build.id)).job.id;
      const jobs = [firstImportJob, activeImportJob, firstBuildJob, stop.jobId, latest.jobId, second.version.job.id];
      for (const job of jobs) await insertJobLog(test, job);
      await insertAgentLog(test, oldAgent);
      await insertAgentLog(test, latestAgent);
      const shortKey = await insertApiKey(test, ownerId, 'expires-in-a-day', DAY_MS);
      const longKey = await insertApiKey(test, ownerId, 'expires-in-35-days', 35 * DAY_MS);

      // Two days on, nothing has reached its retention yet.
      test.clock.advance(2 * DAY_MS);
      await test.daemon.tasks.retention.runNow();
      assert.equal(await agentLogCount(test, oldAgent), 1, 'agent logs are kept for 7 days');
      assert.equal(await jobLogCount(test, firstBuildJob), 1, 'job logs are kept for 30 days');
      assert.ok((await ids(test, 'api_keys')).has(shortKey), 'an expired key is kept for 7 days');

      test.clock.advance(38 * DAY_MS);
      const now = test.clock.now();
      const ago = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();
      const auditCountBefore = await count(test, 'audit_logs');
      await insertAuditRows(
        test,
        Array.from({ length: 2500 }, (_, index) => auditRow(ago(100 + index / 1000), `old-${index}`)),
      );
      const [oldAudit, newAudit] = [auditRow(ago(91), 'just-past'), auditRow(ago(89), 'just-within')];
      await insertAuditRows(test, [oldAudit, newAudit]);
      const oldConnection = await insertConnection(test, ago(91), 'old-ssh');
      const newConnection = await insertConnection(test, ago(89), 'recent-ssh');
      const oldMinute = await insertUsageMinute(test, ownerId, first.template.id, new Date(now.getTime() - 31 * DAY_MS));
      const newMinute = await insertUsageMinute(test, ownerId, first.template.id, new Date(now.getTime() - 29 * DAY_MS));
      const reportsBefore = purgeReports(lines()).length;

      await test.daemon.tasks.retention.runNow();

      const reports = purgeReports(lines()).slice(reportsBefore);
      assert.equal(reports.length, 1, 'one run, one line at info');
      const purged = reports[0] ?? {};
      assert.deepEqual(purged['audit_logs'], { rows: 2501, batches: 3 }, 'a thousand rows a statement');
      const auditIds = await ids(test, 'audit_logs');
      assert.equal(auditIds.has(oldAudit.id), false);
      assert.equal(auditIds.has(newAudit.id), true);
      assert.equal(auditIds.size, auditCountBefore + 1, "the entries of the test's own requests are 40 days old and stay");
      const connectionIds = await ids(test, 'connection_logs');
      assert.equal(connectionIds.has(oldConnection), false);
      assert.equal(connectionIds.has(newConnection), true);
      const minutes = (await test.daemon.store.db.selectFrom('workspace_usage_minutes').select('minute').execute()).map(
        (row) => row.minute,
      );
      assert.equal(minutes.map(Number).includes(oldMinute), false);
      assert.equal(minutes.map(Number).includes(newMinute), true);
      const keys = await ids(test, 'api_keys');
      assert.equal(keys.has(shortKey), false, 'expired 39 days ago');
      assert.equal(keys.has(longKey), true, 'expired 5 days ago');
      assert.equal(await agentLogCount(test, oldAgent), 0, "the first build's agent logs");
      assert.equal(await agentLogCount(test, latestAgent), 1, "the latest build's agent logs stay");
      assert.equal(await jobLogCount(test, firstImportJob), 0, "an old version's import");
      assert.equal(await jobLogCount(test, firstBuildJob), 0, 'an earlier build');
      assert.equal(await jobLogCount(test, stop.jobId), 0, 'an earlier build');
      assert.equal(await jobLogCount(test, latest.jobId), 1, "the workspace's latest build");
      assert.equal(await jobLogCount(test, activeImportJob), 1, "the template's active version");
      assert.equal(await jobLogCount(test, second.version.job.id), 1, "the other template's active version");
      assert.equal(purged['workspace_usage_stats']?.rows, 1);
      assert.equal(purged['connection_logs']?.rows, 1);

      // Nothing is left to purge: the next run deletes nothing and says nothing.
      await test.daemon.tasks.retention.runNow();
      assert.equal(purgeReports(lines()).length, reportsBefore + 1);
    });
  });

  describe(`retention 0 keeps forever, and the audit export (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let directory: string;
    let exportFile: string;
    let connectionExportFile: string;

    before(async () => {
      directory = await mkdtemp(join(tmpdir(), 'cove-export-'));
      exportFile = join(directory, 'audit.jsonl');
      connectionExportFile = join(directory, 'connections.jsonl');
      test = await startTestDaemon({
        database: dialect,
        flags: {
          provisionerDaemons: '1',
          sessionDurationMs: '100000h',
          auditLogsRetentionMs: '0',
          connectionLogsRetentionMs: '0',
          apiKeysRetentionMs: '0',
          workspaceAgentLogsRetentionMs: '0',
          provisionerJobLogsRetentionMs: '0',
          workspaceUsageStatsRetentionMs: '0',
          auditLogsExport: exportFile,
          connectionLogsExport: connectionExportFile,
        },
      });
      owner = await createOwner(test);
    });
    after(async () => {
      await test?.close();
      await rm(directory, { recursive: true, force: true });
    });

    it('purges nothing when every retention is 0', async () => {
      await test.daemon.tasks.retention.runNow();
      const ownerId = (await owner.user('me')).id;
      const { template, version } = await createEchoTemplate(owner, 'forever', {});
      await insertJobLog(test, version.job.id);
      await insertApiKey(test, ownerId, 'long-expired', DAY_MS);
      await insertAuditRows(test, [auditRow(test.clock.now().toISOString(), 'ancient')]);
      await insertConnection(test, test.clock.now().toISOString(), 'ancient-ssh');
      await insertUsageMinute(test, ownerId, template.id, test.clock.now());
      const counts = async () => ({
        audit: await count(test, 'audit_logs'),
        connections: await count(test, 'connection_logs'),
        keys: await count(test, 'api_keys'),
        usage: await count(test, 'workspace_usage_minutes'),
      });
      const before = await counts();
      test.clock.advance(1000 * DAY_MS);
      await test.daemon.tasks.retention.runNow();
      assert.deepEqual(await counts(), before);
      assert.equal(await jobLogCount(test, version.job.id), 1);
    });

    it('writes every audit entry as a JSON line once committed, and starts a new file on SIGHUP', async () => {
      const { template } = await createEchoTemplate(owner, 'exported', {});
      const read = readLines;
      const exported = await read(exportFile);
      const created = exported.find((line) => line['resource_type'] === 'template' && line['resource_id'] === template.id);
      assert.ok(created, 'the template created is exported');
      assert.equal(created['action'], 'create');
      assert.equal(created['resource_target'], 'exported');
      assert.equal(created['user_id'], (await owner.user('me')).id);
      assert.equal(typeof created['diff'], 'object', 'the diff as JSON, not as text');
      assert.equal(created['user'], undefined, 'ids, not the joined user');
      // Each went out once, after it was stored; every entry of the template did.
      const stored = await ids(test, 'audit_logs');
      const written = exported.map((line) => String(line['id']));
      assert.equal(new Set(written).size, written.length);
      assert.deepEqual(
        written.filter((id) => !stored.has(id)),
        [],
      );
      const ofTemplate = await test.daemon.store.db.selectFrom('audit_logs').select('id').where('resource_id', '=', template.id).execute();
      assert.deepEqual(
        ofTemplate.map((row) => row.id).filter((id) => !written.includes(id)),
        [],
      );

      // A log rotator moves the file away and signals: the next entry starts the new file.
      await rename(exportFile, `${exportFile}.1`);
      process.emit('SIGHUP', 'SIGHUP');
      await owner.updateTemplate(template.id, { display_name: 'Exported' });
      const rotated = await read(exportFile);
      assert.equal(rotated.length, 1);
      assert.equal(rotated[0]?.['action'], 'write');
      assert.deepEqual((rotated[0]?.['diff'] as Record<string, unknown>)['display_name'], { old: '', new: 'Exported', secret: false });
      assert.equal((await read(`${exportFile}.1`)).length, exported.length, 'the rotated file is left alone');
    });

    it('writes each connection log row as a JSON line when it opens and when it closes', async () => {
      // The relay's own subject writes the rows; what is tested here is what reaches the file.
      const logger = test.daemon.store.as(SYSTEM_SUBJECTS.connectionLogger).connectionLogs;
      const id = newId();
      const opened = test.clock.now().toISOString();
      await logger.open({
        id,
        connect_time: opened,
        organization_id: test.daemon.identity.defaultOrganization.id,
        workspace_owner_id: newId(),
        workspace_id: newId(),
        workspace_name: 'dev',
        agent_name: 'main',
        type: 'ssh',
        ip: '127.0.0.1',
        user_id: null,
        user_agent: '',
        slug_or_port: '',
        code: null,
        connection_id: id,
        disconnect_time: null,
        disconnect_reason: '',
        bytes_to_workspace: 0,
        bytes_from_workspace: 0,
        replica_id: '',
      });
      const ended = new Date(test.clock.now().getTime() + 1000).toISOString();
      assert.equal(
        await logger.close(id, {
          disconnect_time: ended,
          disconnect_reason: 'closed',
          code: 0,
          bytes_to_workspace: 12,
          bytes_from_workspace: 34,
        }),
        true,
      );
      const lines = (await readLines(connectionExportFile)).filter((line) => line['id'] === id);
      assert.equal(lines.length, 2);
      assert.deepEqual(lines[0]?.['ssh_info'], { connection_id: id });
      assert.equal(lines[0]?.['disconnect_time'], undefined, 'still open');
      assert.deepEqual(lines[1]?.['ssh_info'], { connection_id: id, disconnect_time: ended, disconnect_reason: 'closed', exit_code: 0 });
      assert.equal(lines[1]?.['bytes_to_workspace'], 12);
      assert.equal(lines[1]?.['bytes_from_workspace'], 34);
      assert.equal(lines[1]?.['workspace_name'], 'dev');
    });
  });
}
