import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template, Workspace } from '../../src/sdk/wire/index.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * `GET /workspaces` filters, counts and pages in SQL; these check that each filter picks exactly the
 * workspaces whose answers (derived in code from the same rows) show what it asks for.
 */
describe('workspace lists filtered and paged in the database', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let plain: Template;

  /** Names of the workspaces `q` lists, in list order. */
  async function names(q: string): Promise<string[]> {
    const listed = await owner.workspaces({ q });
    assert.equal(listed.count, listed.workspaces.length, `count of ${q}`);
    return listed.workspaces.map((w) => w.name);
  }

  /** Names of all workspaces whose answer passes `keep`, in list order. */
  async function where(keep: (workspace: Workspace) => boolean): Promise<string[]> {
    return (await owner.workspaces()).workspaces.filter(keep).map((w) => w.name);
  }

  const agentsOf = (workspace: Workspace) => workspace.latest_build.resources.flatMap((r) => r.agents);

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    plain = (await createEchoTemplate(owner, 'plain', {})).template;
    const withAgent = {
      apply: {
        resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: 'never-used', connection_timeout_seconds: 60 }] }],
      },
    };
    const agents = (await createEchoTemplate(owner, 'agents', withAgent)).template;
    const made = [
      await alice.createWorkspace('me', { name: 'dev-one', template_id: plain.id }),
      await alice.createWorkspace('me', { name: 'dev-two', template_id: plain.id }),
      await alice.createWorkspace('me', { name: 'agented', template_id: agents.id }),
      await owner.createWorkspace('me', { name: 'mine', template_id: plain.id }),
    ];
    for (const workspace of made) await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const stop = await alice.createWorkspaceBuild(made[1]?.id ?? '', { transition: 'stop' });
    await owner.followWorkspaceBuildLogs(stop.id, () => undefined);
    await owner.setWorkspaceDormant(made[3]?.id ?? '', true);
    // A newer active version makes the workspaces built on the first one outdated.
    const { id: fileId } = await owner.uploadFile(await createTar({ 'echo.json': '{}', 'v2.txt': 'two' }));
    const v2 = await owner.createTemplateVersion('default', { file_id: fileId, template_id: plain.id });
    await owner.followTemplateVersionLogs(v2.id, () => undefined);
    await owner.promoteTemplateVersion(plain.id, v2.id);
    await alice.createWorkspace('me', { name: 'fresh', template_id: plain.id });
  });
  after(async () => test.close());

  it('pages in list order and counts every match', async () => {
    const all = await owner.workspaces();
    assert.equal(all.count, 5);
    const page = await owner.workspaces({ limit: 2, offset: 1 });
    assert.equal(page.count, 5);
    assert.deepEqual(
      page.workspaces.map((w) => w.id),
      all.workspaces.slice(1, 3).map((w) => w.id),
    );
    const past = await owner.workspaces({ limit: 2, offset: 10 });
    assert.deepEqual([past.workspaces.length, past.count], [0, 5]);
    assert.deepEqual(
      (await alice.workspaces()).workspaces.map((w) => w.name),
      ['agented', 'dev-one', 'dev-two', 'fresh'],
      'a member sees only her own',
    );
  });

  it('filters by owner, template, name, status, dormancy and outdatedness as the answers show them', async () => {
    assert.deepEqual(await names('owner:alice'), await where((w) => w.owner_name === 'alice'));
    assert.deepEqual(await names('template:plain'), await where((w) => w.template_name === 'plain'));
    assert.deepEqual(await names('template:PLAIN owner:me'), ['mine']);
    assert.deepEqual(await names('dev'), ['dev-one', 'dev-two']);
    assert.deepEqual(await names('name:two'), ['dev-two']);
    for (const status of ['running', 'stopped', 'pending', 'failed']) {
      assert.deepEqual(await names(`status:${status}`), await where((w) => w.latest_build.status === status), status);
    }
    assert.deepEqual(await names('status:stopped'), ['dev-two']);
    assert.deepEqual(await names('dormant:true'), ['mine']);
    assert.deepEqual(await names('dormant:false'), await where((w) => w.dormant_at === null));
    assert.deepEqual(await names('outdated:true'), await where((w) => w.outdated));
    assert.deepEqual(await names('outdated:false'), await where((w) => !w.outdated));
    assert.ok((await names('outdated:true')).includes('dev-one'));
    assert.ok((await names('outdated:false')).includes('fresh'));
  });

  it('filters by every build status a job can be in, whichever way the job moved', async () => {
    // Every combination of job timestamps, error and transition, written the way any path that moves
    // a job would: the status filter must follow each one, agreeing with the answer's status.
    const [target] = (await owner.workspaces({ q: 'name:fresh' })).workspaces;
    assert.ok(target);
    const at = new Date().toISOString();
    const states = [
      { transition: 'start', job: { started_at: null, completed_at: null, canceled_at: null, error: '' }, status: 'pending' },
      { transition: 'start', job: { started_at: at, completed_at: null, canceled_at: null, error: '' }, status: 'starting' },
      { transition: 'stop', job: { started_at: at, completed_at: null, canceled_at: null, error: '' }, status: 'stopping' },
      { transition: 'delete', job: { started_at: at, completed_at: null, canceled_at: null, error: '' }, status: 'deleting' },
      { transition: 'start', job: { started_at: at, completed_at: null, canceled_at: at, error: '' }, status: 'canceling' },
      { transition: 'start', job: { started_at: at, completed_at: at, canceled_at: at, error: '' }, status: 'canceled' },
      { transition: 'start', job: { started_at: at, completed_at: at, canceled_at: null, error: 'boom' }, status: 'failed' },
      { transition: 'stop', job: { started_at: at, completed_at: at, canceled_at: null, error: '' }, status: 'stopped' },
      { transition: 'start', job: { started_at: at, completed_at: at, canceled_at: null, error: '' }, status: 'running' },
    ];
    const db = test.daemon.store.db;
    for (const state of states) {
      await db.updateTable('workspace_builds').set({ transition: state.transition }).where('id', '=', target.latest_build.id).execute();
      // One column a statement, only those that change, as the paths that move jobs write them.
      for (const [column, value] of Object.entries(state.job) as [keyof typeof state.job, string | null][]) {
        const job = await db
          .selectFrom('provisioner_jobs')
          .selectAll()
          .where('id', '=', target.latest_build.job.id)
          .executeTakeFirstOrThrow();
        if (job[column] === value) continue;
        await db
          .updateTable('provisioner_jobs')
          .set({ [column]: value })
          .where('id', '=', target.latest_build.job.id)
          .execute();
      }
      const answer = await owner.workspace(target.id);
      assert.equal(answer.latest_build.status, state.status);
      assert.ok((await names(`status:${state.status}`)).includes('fresh'), `status:${state.status}`);
      assert.deepEqual(await names(`status:${state.status}`), await where((w) => w.latest_build.status === state.status), state.status);
    }
  });

  it('finds agents by the status their timestamps and the clock give them', async () => {
    const connecting = await names('has-agent:connecting');
    assert.deepEqual(connecting, ['agented']);
    assert.deepEqual(connecting, await where((w) => agentsOf(w).some((a) => a.status === 'connecting')));
    assert.deepEqual(await names('has-agent:timeout'), []);
    test.clock.advance(61_000);
    assert.deepEqual(await names('has-agent:connecting'), []);
    assert.deepEqual(await names('has-agent:timeout'), ['agented']);
    assert.deepEqual(await names('has-agent:timeout'), await where((w) => agentsOf(w).some((a) => a.status === 'timeout')));
    assert.deepEqual(await names('has-agent:connected'), []);
  });

  it('pages builds in the database, newest first', async () => {
    const [workspace] = (await alice.workspaces({ q: 'name:dev-two' })).workspaces;
    assert.ok(workspace);
    const builds = async (query: string) => {
      const response = await fetch(`${test.url}/api/v2/workspaces/${workspace.id}/builds?${query}`, {
        headers: { 'Service-Session-Token': alice.token ?? '' },
      });
      return { status: response.status, body: (await response.json()) as { build_number: number }[] };
    };
    assert.deepEqual(
      (await builds('')).body.map((b) => b.build_number),
      [2, 1],
    );
    assert.deepEqual(
      (await builds('limit=1')).body.map((b) => b.build_number),
      [2],
    );
    assert.deepEqual(
      (await builds('offset=1')).body.map((b) => b.build_number),
      [1],
    );
    const newest = (await alice.workspaceBuilds(workspace.id))[0];
    assert.ok(newest);
    assert.deepEqual(
      (await builds(`after_id=${newest.id}`)).body.map((b) => b.build_number),
      [1],
    );
    assert.equal((await builds(`after_id=${plain.id}`)).status, 400);
  });
});
