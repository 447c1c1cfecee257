import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template, WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** A machine that costs 4 credits a day while started, and its disk, 1 a day, that a stop keeps. */
const VM = {
  plan: {
    resources: [
      { name: 'vm', daily_cost: 4 },
      { name: 'disk', daily_cost: 0 },
    ],
    stop: { resources: [{ name: 'disk', daily_cost: 1 }] },
  },
};

for (const dialect of TEST_DIALECTS) {
  describe(`workspace quotas (${dialect})`, () => {
    let test: TestDaemon;
    let owner: CoveClient;
    let alice: CoveClient;
    let bob: CoveClient;
    let vm: Template;
    let orgId: string;

    const settled = async (client: CoveClient, build: WorkspaceBuild): Promise<WorkspaceBuild> => {
      await client.followWorkspaceBuildLogs(build.id, () => undefined);
      return client.workspaceBuild(build.id);
    };
    const createStarted = async (client: CoveClient, name: string) => {
      const workspace = await client.createWorkspace('me', { name, template_id: vm.id });
      const build = await settled(client, workspace.latest_build);
      assert.equal(build.status, 'running');
      return { workspace, build };
    };
    const counts = async () => {
      const db = test.daemon.store.db;
      const [workspaces, builds, jobs] = await Promise.all([
        db
          .selectFrom('workspaces')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('workspace_builds')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('provisioner_jobs')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { workspaces: Number(workspaces.n), builds: Number(builds.n), jobs: Number(jobs.n) };
    };
    /** Allowances are set as an administrator sets them, through the groups route. */
    const setAllowance = async (groupId: string, allowance: number) => {
      await owner.patchGroup(groupId, { quota_allowance: allowance });
    };

    before(async () => {
      test = await startTestDaemon({ database: dialect, flags: { provisionerDaemons: '1', sessionDurationMs: '720h' } });
      owner = await createOwner(test);
      alice = await createMember(test, 'alice');
      bob = await createMember(test, 'bob');
      orgId = test.daemon.identity.defaultOrganization.id;
      vm = (await createEchoTemplate(owner, 'vm', VM)).template;
    });
    after(async () => test?.close());

    it('records the declared daily cost on resources and builds, and counts nothing while no group has an allowance', async () => {
      const { workspace, build } = await createStarted(owner, 'owner-vm');
      assert.equal(build.daily_cost, 4);
      assert.deepEqual(build.resources.map((resource) => [resource.name, resource.daily_cost]).sort(), [
        ['disk', 0],
        ['vm', 4],
      ]);
      assert.equal((await owner.workspace(workspace.id)).latest_build.daily_cost, 4);
      // No allowance anywhere: quotas are not in use, and the budget says so with -1.
      assert.deepEqual(await owner.workspaceQuota('me'), { credits_consumed: 4, budget: -1 });
      assert.deepEqual(await alice.workspaceQuota('me'), { credits_consumed: 0, budget: -1 });
    });

    it('sums the allowances of the Everyone group and the stored groups of the user', async () => {
      await setAllowance(orgId, 10);
      const extra = await owner.createGroup(orgId, { name: 'extra', quota_allowance: 5 });
      await owner.patchGroup(extra.id, { add_users: [(await bob.user('me')).id] });
      assert.deepEqual(await alice.workspaceQuota('me'), { credits_consumed: 0, budget: 10 });
      assert.deepEqual(await bob.workspaceQuota('me'), { credits_consumed: 0, budget: 15 });
      assert.deepEqual(await bob.workspaceQuota('bob', 'cove'), { credits_consumed: 0, budget: 15 });
      assert.deepEqual(await owner.workspaceQuota('me', orgId), { credits_consumed: 4, budget: 10 });
    });

    it('lets the user and those who may read their workspaces read their quota, and hides it from others', async () => {
      assert.deepEqual(await owner.workspaceQuota('alice'), { credits_consumed: 0, budget: 10 });
      assert.deepEqual(await owner.workspaceQuota('alice', 'cove'), { credits_consumed: 0, budget: 10 });
      await expectApiError(bob.workspaceQuota('alice'), 404);
      await expectApiError(bob.workspaceQuota('alice', 'cove'), 404);
      await expectApiError(test.anonymous.workspaceQuota('alice'), 401);
    });

    it('refuses a workspace that would go over budget before anything is written, saying by how much', async () => {
      await createStarted(alice, 'one');
      await createStarted(alice, 'two');
      assert.deepEqual(await alice.workspaceQuota('me'), { credits_consumed: 8, budget: 10 });
      const before = await counts();
      const refused = await expectApiError(alice.createWorkspace('me', { name: 'three', template_id: vm.id }), 403);
      assert.equal(refused.body.message, 'This build costs 4 credits a day; you have 2 of 10 left: 2 over budget.');
      assert.deepEqual(await counts(), before, 'no workspace, build or job was written');
      // The owner creating one for her is told the same numbers about her.
      const forHer = await expectApiError(owner.createWorkspace('alice', { name: 'three', template_id: vm.id }), 403);
      assert.equal(forHer.body.message, 'This build costs 4 credits a day; the owner has 2 of 10 left: 2 over budget.');
      assert.deepEqual(await counts(), before);
    });

    it('frees credits on stop, and refuses a start that would take them back over budget', async () => {
      const two = await alice.workspaceByOwnerAndName('me', 'two');
      const stopped = await settled(alice, await alice.createWorkspaceBuild(two.id, { transition: 'stop' }));
      assert.equal(stopped.status, 'stopped');
      assert.equal(stopped.daily_cost, 1, 'a stopped workspace still pays for its disk');
      assert.deepEqual(await alice.workspaceQuota('me'), { credits_consumed: 5, budget: 10 });
      await createStarted(alice, 'three');
      assert.deepEqual(await alice.workspaceQuota('me'), { credits_consumed: 9, budget: 10 });

      const before = await counts();
      const refused = await expectApiError(alice.createWorkspaceBuild(two.id, { transition: 'start' }), 403);
      assert.equal(refused.body.message, 'This build costs 4 credits a day; you have 2 of 10 left: 2 over budget.');
      assert.deepEqual(await counts(), before, 'no build or job was written');
      assert.equal((await alice.workspace(two.id)).latest_build.id, stopped.id);

      // Stopping another makes room again; deleting one takes its cost away entirely.
      const three = await alice.workspaceByOwnerAndName('me', 'three');
      await settled(alice, await alice.createWorkspaceBuild(three.id, { transition: 'delete' }));
      assert.deepEqual(await alice.workspaceQuota('me'), { credits_consumed: 5, budget: 10 });
      const started = await settled(alice, await alice.createWorkspaceBuild(two.id, { transition: 'start' }));
      assert.equal(started.status, 'running');
      assert.deepEqual(await alice.workspaceQuota('me'), { credits_consumed: 8, budget: 10 });
    });

    it('lets a user over budget still stop and delete, since those cost less', async () => {
      await setAllowance(orgId, 3);
      const one = await alice.workspaceByOwnerAndName('me', 'one');
      const stopped = await settled(alice, await alice.createWorkspaceBuild(one.id, { transition: 'stop' }));
      assert.equal(stopped.status, 'stopped');
      assert.deepEqual(await alice.workspaceQuota('me'), { credits_consumed: 5, budget: 3 });
      await expectApiError(alice.createWorkspaceBuild(one.id, { transition: 'start' }), 403, /you have 0 of 3 left: 5 over budget/);
    });

    it('fails a queued start that the budget no longer covers when a provisioner takes it up', async () => {
      await setAllowance(orgId, 100);
      // The one provisioner is kept busy, so the next build waits in the queue.
      const { template: stuck } = await createEchoTemplate(owner, 'stuck', { apply: { start: { hang: true } } });
      const blocker = await owner.createWorkspace('me', { name: 'blocker', template_id: stuck.id });
      const late = await alice.createWorkspace('me', { name: 'late', template_id: vm.id });
      assert.equal(late.latest_build.status, 'pending');
      await setAllowance(orgId, 3);
      await owner.cancelWorkspaceBuild(blocker.latest_build.id);
      const failed = await settled(alice, late.latest_build);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.job.error, 'insufficient quota: this build costs 4 credits a day; the owner has 0 of 3 left: 6 over budget.');
      assert.equal(failed.daily_cost, 0);
      assert.deepEqual(await alice.workspaceQuota('me'), { credits_consumed: 5, budget: 3 });
    });
  });
}
