import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template, Workspace, WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { TestLicenseIssuer } from '../helpers/licenses.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('the lifecycle executor, driven by the test clock', () => {
  let test: TestDaemon;
  let owner: CoveClient;

  async function echoTemplate(name: string, echo: unknown, settings: Record<string, unknown> = {}): Promise<Template> {
    return (await createEchoTemplate(owner, name, echo, { settings, files: { 'name.txt': name } })).template;
  }

  async function settled(build: WorkspaceBuild): Promise<WorkspaceBuild> {
    await owner.followWorkspaceBuildLogs(build.id, () => undefined);
    return owner.workspaceBuild(build.id);
  }

  /** Runs one executor tick and waits for the build it queued, if any. */
  async function tick(workspace: Workspace): Promise<WorkspaceBuild> {
    await test.daemon.tasks.autobuild.runNow();
    const [latest] = await owner.workspaceBuilds(workspace.id);
    assert.ok(latest);
    return settled(latest);
  }

  before(async () => {
    const issuer = new TestLicenseIssuer();
    test = await startTestDaemon({
      flags: { provisionerDaemons: '2', sessionDurationMs: '100000h', licensePublicKeys: issuer.trustEntry },
    });
    owner = await createOwner(test);
    // Failure TTLs and dormancy are advanced template scheduling: they act only under a license.
    await owner.addLicense(await issuer.license({ now: test.clock.now(), features: { advanced_template_scheduling: 1 } }));
  });
  after(async () => test.close());

  it('stops a workspace at its deadline and starts it on its schedule, once', async () => {
    const template = await echoTemplate('scheduled', {});
    const workspace = await owner.createWorkspace('me', {
      name: 'daily',
      template_id: template.id,
      ttl_ms: HOUR,
      autostart_schedule: 'CRON_TZ=UTC 0 9 * * *',
    });
    const first = await settled(workspace.latest_build);
    assert.equal(first.status, 'running');
    assert.ok(first.deadline);
    assert.ok((await owner.workspace(workspace.id)).next_start_at?.endsWith('T09:00:00.000Z'));

    test.clock.advance(30 * MINUTE);
    await test.daemon.tasks.autobuild.runNow();
    assert.equal((await owner.workspaceBuilds(workspace.id)).length, 1, 'nothing before the deadline');

    test.clock.set(new Date(Date.parse(first.deadline ?? '') + MINUTE));
    const stop = await tick(workspace);
    assert.deepEqual([stop.transition, stop.reason, stop.status], ['stop', 'autostop', 'stopped']);

    test.clock.set(new Date('2026-01-06T09:00:30.000Z'));
    const start = await tick(workspace);
    assert.deepEqual([start.transition, start.reason, start.status], ['start', 'autostart', 'running']);
    assert.equal(start.initiator_name, 'owner');
    await test.daemon.tasks.autobuild.runNow();
    assert.equal((await owner.workspaceBuilds(workspace.id)).length, 3, 'one autostart per scheduled time');
  });

  it('stops a failed start after the failure TTL', async () => {
    const template = await echoTemplate('flaky', { apply: { start: { error: 'no capacity' } } }, { failure_ttl_ms: 2 * MINUTE });
    const workspace = await owner.createWorkspace('me', { name: 'flaky', template_id: template.id });
    assert.equal((await settled(workspace.latest_build)).status, 'failed');
    test.clock.advance(MINUTE);
    await test.daemon.tasks.autobuild.runNow();
    assert.equal((await owner.workspaceBuilds(workspace.id)).length, 1);
    test.clock.advance(2 * MINUTE);
    const stop = await tick(workspace);
    assert.deepEqual([stop.transition, stop.reason], ['stop', 'autostop']);
  });

  it('marks unused workspaces dormant, stopping them, then deletes them', async () => {
    const template = await echoTemplate('idle', {}, { time_til_dormant_ms: 2 * HOUR, time_til_dormant_autodelete_ms: HOUR });
    const workspace = await owner.createWorkspace('me', { name: 'idle', template_id: template.id });
    await settled(workspace.latest_build);
    test.clock.advance(HOUR);
    await owner.reportWorkspaceUsage(workspace.id);
    test.clock.advance(HOUR + 30 * MINUTE);
    await test.daemon.tasks.autobuild.runNow();
    assert.equal((await owner.workspace(workspace.id)).dormant_at, null, 'used an hour and a half ago: not dormant yet');

    test.clock.advance(HOUR);
    const stop = await tick(workspace);
    assert.deepEqual([stop.transition, stop.reason, stop.status], ['stop', 'dormancy', 'stopped']);
    const dormant = await owner.workspace(workspace.id);
    assert.ok(dormant.dormant_at);
    assert.equal(Date.parse(dormant.deleting_at ?? '') - Date.parse(dormant.dormant_at ?? ''), HOUR);
    assert.ok((await owner.workspaces({ q: 'dormant:true' })).workspaces.some((w) => w.id === workspace.id));

    test.clock.advance(HOUR + MINUTE);
    const deletion = await tick(workspace);
    assert.deepEqual([deletion.transition, deletion.reason, deletion.status], ['delete', 'autodelete', 'deleted']);
  });
});
