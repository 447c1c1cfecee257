import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, afterEach, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { workspaceEventsChannel } from '../../src/domain/workspace-events.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template, Workspace, WorkspaceBuild } from '../../src/sdk/wire/index.js';
import { eventually } from '../helpers/eventually.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { createEchoTemplate } from '../helpers/echo-template.js';

const ECHO = {
  parse: {
    presets: [{ name: 'Big', parameters: [{ name: 'size', value: '6' }] }],
    parameters: [
      {
        name: 'size',
        type: 'number',
        default_value: '2',
        mutable: true,
        validation_min: 1,
        validation_max: 8,
        validation_monotonic: 'increasing',
      },
      {
        name: 'region',
        type: 'string',
        default_value: 'eu',
        mutable: false,
        options: [
          { name: 'EU', value: 'eu' },
          { name: 'US', value: 'us' },
        ],
      },
    ],
  },
  apply: {
    resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }],
    start: { state: 'started' },
    stop: { state: 'stopped' },
  },
};

async function finished(client: CoveClient, build: WorkspaceBuild): Promise<WorkspaceBuild> {
  await client.followWorkspaceBuildLogs(build.id, () => undefined);
  return client.workspaceBuild(build.id);
}

describe('workspaces and builds', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let bob: CoveClient;
  let template: Template;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '2' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    bob = await createMember(test, 'bob');
    ({ template } = await createEchoTemplate(owner, 'echo', ECHO));
  });
  after(async () => test.close());

  it('creates a workspace whose first build runs, then stops, starts and deletes it', async () => {
    const created = await alice.createWorkspace('me', {
      name: 'dev',
      template_id: template.id,
      rich_parameter_values: [{ name: 'size', value: '3' }],
    });
    assert.equal(created.latest_build.build_number, 1);
    assert.equal(created.latest_build.transition, 'start');
    assert.ok(['pending', 'starting', 'running'].includes(created.latest_build.status));
    const first = await finished(alice, created.latest_build);
    assert.equal(first.status, 'running');
    assert.deepEqual(
      first.resources.map((r) => [r.name, r.agents.map((a) => a.name)]),
      [['box', ['main']]],
    );
    assert.deepEqual(await alice.workspaceBuildParameters(first.id), [
      { name: 'size', value: '3' },
      { name: 'region', value: 'eu' },
    ]);
    const listed = await alice.workspaces({ q: 'owner:me status:running' });
    assert.deepEqual(
      listed.workspaces.map((w) => [w.name, w.latest_build.status, w.outdated]),
      [['dev', 'running', false]],
    );
    assert.equal(listed.count, 1);

    const stop = await finished(alice, await alice.createWorkspaceBuild(created.id, { transition: 'stop' }));
    assert.equal(stop.status, 'stopped');
    assert.equal(stop.build_number, 2);
    const start = await finished(
      alice,
      await alice.createWorkspaceBuild(created.id, { transition: 'start', rich_parameter_values: [{ name: 'size', value: '4' }] }),
    );
    assert.equal(start.status, 'running');
    assert.deepEqual(await alice.workspaceBuildParameters(start.id), [
      { name: 'size', value: '4' },
      { name: 'region', value: 'eu' },
    ]);
    const decreasing = await expectApiError(
      alice.createWorkspaceBuild(created.id, { transition: 'start', rich_parameter_values: [{ name: 'size', value: '2' }] }),
      400,
    );
    assert.match(decreasing.body.detail ?? '', /equal or greater than the previous value 4/);
    const immutable = await expectApiError(
      alice.createWorkspaceBuild(created.id, { transition: 'start', rich_parameter_values: [{ name: 'region', value: 'us' }] }),
      400,
    );
    assert.match(immutable.body.detail ?? '', /not mutable/);
    assert.equal((await alice.workspaceBuildByNumber('me', 'dev', 2)).transition, 'stop');

    const deleted = await finished(alice, await alice.createWorkspaceBuild(created.id, { transition: 'delete' }));
    assert.equal(deleted.status, 'deleted');
    await expectApiError(alice.workspace(created.id), 410);
    assert.equal((await alice.workspace(created.id, true)).latest_build.status, 'deleted');
    await expectApiError(alice.workspaceByOwnerAndName('me', 'dev'), 404);
    assert.equal((await alice.workspaceByOwnerAndName('me', 'dev', true)).id, created.id);
    assert.equal((await alice.workspaces()).count, 0);
    const again = await alice.createWorkspace('me', { name: 'dev', template_id: template.id });
    assert.notEqual(again.id, created.id, 'a deleted name can be used again');
  });

  it('answers a create with what reading the workspace back shows', async () => {
    const created = await alice.createWorkspace('me', { name: 'answered', template_id: template.id });
    const read = await alice.workspace(created.id);
    // What the build does meanwhile (its job starting and finishing) may differ; nothing else may.
    const VOLATILE = new Set(['status', 'started_at', 'completed_at', 'updated_at', 'resources', 'health', 'deadline', 'max_deadline']);
    const VOLATILE_JOB = new Set(['queue_position', 'queue_size', 'available_workers', 'worker_id', 'worker_name', 'logs_overflowed']);
    const stable = (value: unknown, volatile = VOLATILE): unknown => {
      if (Array.isArray(value)) return value.map((item) => stable(item, volatile));
      if (typeof value !== 'object' || value === null) return value;
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => !volatile.has(key))
          .map(([key, item]) => [key, stable(item, key === 'job' ? new Set([...VOLATILE, ...VOLATILE_JOB]) : volatile)]),
      );
    };
    assert.deepEqual(stable(created), stable(read));
    assert.equal(created.owner_name, 'alice');
    assert.equal(created.latest_build.initiator_name, 'alice');
    assert.ok(created.organization_name.length > 0);
    assert.equal(created.latest_build.template_version_name, read.latest_build.template_version_name);
    await finished(alice, created.latest_build);
  });

  it('applies a preset, with explicit values taking precedence', async () => {
    const [preset] = await alice.templateVersionPresets(template.active_version_id);
    assert.ok(preset);
    const big = await alice.createWorkspace('me', { name: 'big', template_id: template.id, template_version_preset_id: preset.ID });
    assert.deepEqual(await alice.workspaceBuildParameters(big.latest_build.id), [
      { name: 'size', value: '6' },
      { name: 'region', value: 'eu' },
    ]);
    assert.equal((await alice.workspace(big.id)).latest_build.template_version_preset_id, preset.ID);
    const mixed = await alice.createWorkspace('me', {
      name: 'mixed',
      template_id: template.id,
      template_version_preset_id: preset.ID,
      rich_parameter_values: [{ name: 'size', value: '7' }],
    });
    assert.deepEqual(await alice.workspaceBuildParameters(mixed.latest_build.id), [
      { name: 'size', value: '7' },
      { name: 'region', value: 'eu' },
    ]);
    await expectApiError(
      alice.createWorkspace('me', { name: 'nopreset', template_id: template.id, template_version_preset_id: template.id }),
      400,
    );
  });

  it('refuses bad creation requests with a 400 naming the field', async () => {
    const both = await expectApiError(
      alice.createWorkspace('me', { name: 'x', template_id: template.id, template_version_id: template.active_version_id }),
      400,
    );
    assert.deepEqual(
      both.body.validations?.map((v) => v.field),
      ['template_id', 'template_version_id'],
    );
    await expectApiError(alice.createWorkspace('me', { name: 'x' }), 400);
    const big = await expectApiError(
      alice.createWorkspace('me', { name: 'x', template_id: template.id, rich_parameter_values: [{ name: 'size', value: '9' }] }),
      400,
    );
    assert.equal(big.message, 'Unable to validate parameter "size"');
    await expectApiError(alice.createWorkspace('me', { name: 'bad name', template_id: template.id }), 400);
    const ttl = await expectApiError(alice.createWorkspace('me', { name: 'x', template_id: template.id, ttl_ms: 1000 }), 400);
    assert.deepEqual(
      ttl.body.validations?.map((v) => v.field),
      ['ttl_ms'],
    );
    await expectApiError(
      alice.createWorkspace('me', { name: 'x', template_id: template.id, autostart_schedule: 'CRON_TZ=Mars/Base 0 9 * * 1-5' }),
      400,
    );
    await alice.createWorkspace('me', { name: 'taken', template_id: template.id });
    await expectApiError(alice.createWorkspace('me', { name: 'taken', template_id: template.id }), 409);
    await expectApiError(alice.createWorkspace('bob', { name: 'x', template_id: template.id }), 404);
  });

  it('builds on the version asked for, and refuses one of another template or none at all', async () => {
    const created = await owner.createWorkspace('me', { name: 'versioned', template_id: template.id });
    await finished(owner, created.latest_build);
    const { template: other } = await createEchoTemplate(owner, 'other-echo', ECHO);
    await expectApiError(
      owner.createWorkspaceBuild(created.id, { transition: 'stop', template_version_id: other.active_version_id }),
      400,
      /template version doesn't match template/,
    );
    await expectApiError(
      owner.createWorkspaceBuild(created.id, { transition: 'stop', template_version_id: '6b1f4a53-6d1e-4c59-9a43-3f3b2a5d7e10' }),
      400,
      /template version does not exist/,
    );
    const stopped = await finished(
      owner,
      await owner.createWorkspaceBuild(created.id, { transition: 'stop', template_version_id: template.active_version_id }),
    );
    assert.equal(stopped.template_version_id, template.active_version_id);
    assert.equal(stopped.status, 'stopped');
    await finished(owner, await owner.createWorkspaceBuild(created.id, { transition: 'delete' }));
  });

  it('refuses a second build while one is active, and hides workspaces from other members', async () => {
    // The apply takes long enough that the build is surely still active when the second one is asked for.
    const slow = await createEchoTemplate(owner, 'slow-busy', { apply: { delay_ms: 1500 } });
    const workspace = await bob.createWorkspace('me', {
      name: 'busy',
      template_id: slow.template.id,
      autostart_schedule: 'CRON_TZ=Europe/London 30 9 * * 1-5',
      ttl_ms: 3_600_000,
    });
    await expectApiError(bob.createWorkspaceBuild(workspace.id, { transition: 'stop' }), 409);
    const done = await finished(bob, workspace.latest_build);
    assert.equal(done.deadline, new Date(Date.parse(done.job.completed_at ?? '') + 3_600_000).toISOString());
    await expectApiError(alice.workspace(workspace.id), 404);
    await expectApiError(alice.createWorkspaceBuild(workspace.id, { transition: 'stop' }), 404);
    assert.ok(!(await alice.workspaces()).workspaces.some((w) => w.id === workspace.id));
    assert.ok((await owner.workspaces({ q: 'owner:bob' })).workspaces.some((w) => w.id === workspace.id));
    assert.equal((await bob.workspace(workspace.id)).autostart_schedule, 'CRON_TZ=Europe/London 30 9 * * 1-5');
    await expectApiError(bob.workspaces({ q: 'color:blue' }), 400);
    await expectApiError(bob.createWorkspaceBuild(workspace.id, { transition: 'reboot' }), 400);
  });

  it("records a start's deadline from the workspace's TTL as it is when the build ends, even when it changed while the build ran", async () => {
    const slow = await createEchoTemplate(owner, 'slow-apply', { apply: { delay_ms: 1500 } });
    const workspace = await bob.createWorkspace('me', { name: 'ttl-changes', template_id: slow.template.id, ttl_ms: 3_600_000 });
    // The job's claim has read the workspace (and its TTL) by the time its build is starting.
    await eventually(async () => assert.equal((await bob.workspace(workspace.id)).latest_build.status, 'starting'));
    await bob.updateWorkspaceTtl(workspace.id, 7_200_000);
    const done = await finished(bob, workspace.latest_build);
    assert.equal(done.status, 'running');
    assert.equal(done.deadline, new Date(Date.parse(done.job.completed_at ?? '') + 7_200_000).toISOString());
  });

  it('streams the workspace to watchers on every change', async () => {
    const workspace = await alice.createWorkspace('me', { name: 'watched', template_id: template.id });
    await finished(alice, workspace.latest_build);
    const seen: string[] = [];
    const controller = new AbortController();
    const watching = alice.watchWorkspace(
      workspace.id,
      (w) => seen.push(`${w.latest_build.build_number}:${w.latest_build.status}:${w.favorite}`),
      controller.signal,
    );
    const waitFor = async (entry: string) => {
      const deadline = Date.now() + 10_000;
      while (!seen.includes(entry)) {
        assert.ok(Date.now() < deadline, `never saw ${entry}; saw ${seen.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    await waitFor('1:running:false');
    await alice.favoriteWorkspace(workspace.id);
    await waitFor('1:running:true');
    const stop = await alice.createWorkspaceBuild(workspace.id, { transition: 'stop' });
    await finished(alice, stop);
    await waitFor('2:stopped:true');
    controller.abort();
    await watching;
    await expectApiError(bob.favoriteWorkspace(workspace.id), 404);
    await expectApiError(owner.favoriteWorkspace(workspace.id), 403);
  });

  it("shares ports within the template's maximum, which is public unless the template sets one", async () => {
    const workspace = await alice.createWorkspace('me', { name: 'ports', template_id: template.id });
    await finished(alice, workspace.latest_build);
    assert.equal(template.max_port_share_level, 'public', 'a template created with the defaults');
    const share = await alice.sharePort(workspace.id, { agent_name: 'main', port: 8080, share_level: 'authenticated' });
    assert.deepEqual(share, { workspace_id: workspace.id, agent_name: 'main', port: 8080, share_level: 'authenticated', protocol: 'http' });
    await owner.updateTemplate(template.id, { max_port_share_level: 'owner' });
    assert.deepEqual((await alice.portShares(workspace.id)).shares, [], 'lowering the maximum to owner ends every share');
    const capped = await expectApiError(
      alice.sharePort(workspace.id, { agent_name: 'main', port: 8080, share_level: 'authenticated' }),
      400,
    );
    assert.match(capped.message, /Max level is 'owner'/);
    await owner.updateTemplate(template.id, { max_port_share_level: 'public' });
    await alice.sharePort(workspace.id, { agent_name: 'main', port: 8080, share_level: 'public', protocol: 'https' });
    await alice.sharePort(workspace.id, { agent_name: 'main', port: 3000, share_level: 'organization' });
    assert.deepEqual(
      (await alice.portShares(workspace.id)).shares.map((s) => [s.port, s.share_level, s.protocol]),
      [
        [3000, 'organization', 'http'],
        [8080, 'public', 'https'],
      ],
    );
    await expectApiError(alice.sharePort(workspace.id, { agent_name: 'main', port: 8, share_level: 'public' }), 400);
    await expectApiError(alice.sharePort(workspace.id, { agent_name: 'main', port: 80, share_level: 'owner' }), 400);
    await expectApiError(alice.sharePort(workspace.id, { agent_name: 'main', port: 80, share_level: 'public', protocol: 'ftp' }), 400);
    const agent = await expectApiError(alice.sharePort(workspace.id, { agent_name: 'ghost', port: 80, share_level: 'public' }), 400);
    assert.equal(agent.message, 'Agent not found.');
    await alice.unsharePort(workspace.id, { agent_name: 'main', port: 3000 });
    await expectApiError(alice.unsharePort(workspace.id, { agent_name: 'main', port: 3000 }), 404);
    await expectApiError(bob.portShares(workspace.id), 404);
    await owner.updateTemplate(template.id, { max_port_share_level: 'authenticated' });
    assert.deepEqual(
      (await alice.portShares(workspace.id)).shares.map((s) => s.share_level),
      ['authenticated'],
      'lowering the maximum narrows shares',
    );
    await owner.updateTemplate(template.id, { max_port_share_level: 'owner' });
    assert.deepEqual((await alice.portShares(workspace.id)).shares, []);
  });

  it('counts the users of a template and times its builds, and refuses to delete it while used', async () => {
    await finished(bob, (await bob.createWorkspace('me', { name: 'counted', template_id: template.id })).latest_build);
    const current = await owner.template(template.id);
    assert.equal(current.active_user_count, 2, 'alice and bob have workspaces from it');
    assert.equal(typeof current.build_time_stats.start?.P50, 'number');
    assert.equal(typeof current.build_time_stats.stop?.P95, 'number');
    const refused = await expectApiError(owner.deleteTemplate(template.id), 400);
    assert.equal(refused.message, 'All workspaces must be deleted before a template can be removed.');
  });
});

/** One `/watch-ws` stream and every message it has had, in order. */
interface WatchSocket {
  readonly messages: { readonly type: string; readonly data?: unknown }[];
  /** The workspaces of its `data` messages. */
  workspaces(): Workspace[];
  /** The messages of its `error` events. */
  errors(): string[];
  close(): Promise<void>;
}

/** Opens a stream; `open` collects it so that a failed test still closes it (an open stream would keep the daemon from closing). */
/**
 * Throws unless `check` holds for every stream, naming what each has had. A message of our own also
 * spares node's assert from parsing the test's source to write one, which takes long enough, failure
 * after failure in `eventually`, to starve the daemon in the same process.
 */
function assertEvery(streams: readonly WatchSocket[], check: (stream: WatchSocket) => boolean, what: string): void {
  if (streams.every(check)) return;
  assert.fail(`not every stream ${what}: ${JSON.stringify(streams.map((stream) => stream.messages.map((m) => m.type)))}`);
}

async function watchSocket(test: TestDaemon, client: CoveClient, workspaceId: string, open: Set<WatchSocket>): Promise<WatchSocket> {
  const socket = new WebSocket(`${test.url.replace(/^http/, 'ws')}/api/v2/workspaces/${workspaceId}/watch-ws`, {
    headers: { 'Service-Session-Token': client.token ?? '' },
  });
  const messages: { type: string; data?: unknown }[] = [];
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as { type: string; data?: unknown }));
  await once(socket, 'open');
  const stream: WatchSocket = {
    messages,
    workspaces: () => messages.filter((m) => m.type === 'data').map((m) => m.data as Workspace),
    errors: () => messages.filter((m) => m.type === 'error').map((m) => (m.data as { message: string }).message),
    async close() {
      open.delete(stream);
      if (socket.readyState === socket.CLOSED) return;
      const closed = once(socket, 'close');
      socket.close();
      await closed;
    },
  };
  open.add(stream);
  return stream;
}

describe('workspace watch streams', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let carol: CoveClient;
  let template: Template;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', prometheusEnable: 'true', prometheusAddress: '127.0.0.1:0' } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    carol = await createMember(test, 'carol');
    ({ template } = await createEchoTemplate(owner, 'echo', ECHO));
  });
  const open = new Set<WatchSocket>();
  const sse = new Set<AbortController>();
  afterEach(async () => {
    for (const controller of sse) controller.abort();
    await Promise.all([...open].map((stream) => stream.close()));
  });
  after(async () => test.close());
  const watch = (client: CoveClient, workspaceId: string) => watchSocket(test, client, workspaceId, open);

  /** The daemon's open watch streams and the shared re-reads serving them, from its Prometheus metrics. */
  async function watchCounts(): Promise<{ watchers: number; groups: number }> {
    const text = await (await fetch(`${test.daemon.metricsUrl}/metrics`)).text();
    const value = (name: string) => Number(/^(\S+) (\S+)$/m.exec(text.split('\n').find((line) => line.startsWith(`${name} `)) ?? '')?.[2]);
    return { watchers: value('cove_workspace_watchers'), groups: value('cove_workspace_watch_groups') };
  }

  async function runningWorkspace(name: string): Promise<Workspace> {
    const workspace = await alice.createWorkspace('me', { name, template_id: template.id });
    await finished(alice, workspace.latest_build);
    return alice.workspace(workspace.id);
  }

  it('gives the watchers of one caller one shared re-read, answers newcomers alone, and ends it with the last of them', async () => {
    const workspace = await runningWorkspace('shared');
    const controller = new AbortController();
    sse.add(controller);
    const seen: Workspace[][] = [[], []];
    const watching = seen.map((list) => alice.watchWorkspace(workspace.id, (w) => list.push(w), controller.signal));
    const aliceSocket = await watch(alice, workspace.id);
    const ownerSocket = await watch(owner, workspace.id);
    const all = () => [...seen, aliceSocket.workspaces(), ownerSocket.workspaces()];
    await eventually(() =>
      assert.ok(
        all().every((list) => list.length >= 1),
        'every stream starts with the workspace',
      ),
    );
    // Alice's three streams are one group; the site owner's is another.
    assert.deepEqual(await watchCounts(), { watchers: 4, groups: 2 });

    await alice.favoriteWorkspace(workspace.id);
    await eventually(() =>
      assert.ok(
        [...seen, aliceSocket.workspaces()].every((list) => list.at(-1)?.favorite === true),
        "every one of alice's streams sees the change",
      ),
    );
    // The star is alice's own: the site owner's stream never shows it.
    assert.ok(
      ownerSocket.workspaces().every((w) => !w.favorite),
      "the owner's stream shows no star",
    );

    const before = aliceSocket.messages.length;
    const late = await watch(alice, workspace.id);
    await eventually(() => assert.equal(late.workspaces()[0]?.favorite, true, 'a newcomer gets the current state'));
    assert.deepEqual(await watchCounts(), { watchers: 5, groups: 2 });
    assert.equal(aliceSocket.messages.length, before, 'nothing changed, so the others are not sent it again');

    controller.abort();
    await Promise.all(watching);
    await Promise.all([aliceSocket.close(), ownerSocket.close(), late.close()]);
    await eventually(async () => assert.deepEqual(await watchCounts(), { watchers: 0, groups: 0 }));

    // Streams that come and go leave nothing behind: no group, so no subscription either.
    for (let round = 0; round < 10; round++) {
      const streams = await Promise.all([1, 2, 3].map(() => watch(alice, workspace.id)));
      await eventually(() => assertEvery(streams, (stream) => stream.workspaces().length >= 1, `has its first answer in round ${round}`));
      await Promise.all(streams.map((stream) => stream.close()));
    }
    await eventually(async () => assert.deepEqual(await watchCounts(), { watchers: 0, groups: 0 }));
  });

  it('reads for each caller as that caller: a dormant workspace stays in view only of those who may read it so', async () => {
    const workspace = await runningWorkspace('dozing');
    const readOnly = { negate: false, resource_type: 'workspace', action: 'read' } as const;
    await owner.createCustomRole('default', { name: 'workspace-reader', organization_permissions: [readOnly] });
    await owner.setMemberRoles('default', 'carol', ['workspace-reader']);
    const carolBefore = await watch(carol, workspace.id);
    // The same role name, now with the dormant kind too: carol's next stream is another subject.
    await owner.updateCustomRole('default', {
      name: 'workspace-reader',
      organization_permissions: [readOnly, { ...readOnly, resource_type: 'workspace_dormant' }],
    });
    const carolAfter = await watch(carol, workspace.id);
    const aliceSocket = await watch(alice, workspace.id);
    const streams = [carolBefore, carolAfter, aliceSocket];
    await eventually(() => assertEvery(streams, (stream) => stream.workspaces().length >= 1, 'has its first answer'));
    assert.deepEqual(await watchCounts(), { watchers: 3, groups: 3 });

    await owner.setWorkspaceDormant(workspace.id, true);
    await eventually(() => {
      assert.notEqual(aliceSocket.workspaces().at(-1)?.dormant_at, null);
      assert.notEqual(carolAfter.workspaces().at(-1)?.dormant_at, null);
      assert.deepEqual(carolBefore.errors(), ['Could not read the workspace.']);
    });
    assert.ok(
      carolBefore.workspaces().every((w) => w.dormant_at === null),
      'the refused caller was shown nothing of the dormant workspace',
    );
    await Promise.all(streams.map((stream) => stream.close()));
    await eventually(async () => assert.deepEqual(await watchCounts(), { watchers: 0, groups: 0 }));
  });

  it('re-reads the workspaces that change together in one turn together, each stream getting its own', async () => {
    const workspaces = await Promise.all(['batch-a', 'batch-b', 'batch-c', 'batch-d'].map((name) => runningWorkspace(name)));
    const streams = await Promise.all(workspaces.map((workspace) => watch(alice, workspace.id)));
    await eventually(() => assertEvery(streams, (stream) => stream.workspaces().length >= 1, 'has its first answer'));
    // One turn: every workspace's event reaches the daemon at once, as when many builds finish together.
    for (const workspace of workspaces) await test.daemon.store.pubsub.publish(workspaceEventsChannel(workspace.id), 'build');
    await eventually(() => assertEvery(streams, (stream) => stream.workspaces().length >= 2, 'has its re-read'));
    streams.forEach((stream, index) => {
      assert.deepEqual(
        new Set(stream.workspaces().map((w) => w.id)),
        new Set([workspaces[index]?.id]),
        'a stream shows its own workspace only',
      );
    });
    const stopped = await Promise.all(
      workspaces.map(async (workspace) => finished(alice, await alice.createWorkspaceBuild(workspace.id, { transition: 'stop' }))),
    );
    assert.equal(stopped.length, workspaces.length);
    await eventually(() =>
      assertEvery(
        streams,
        (stream) =>
          stream.workspaces().at(-1)?.latest_build.transition === 'stop' && stream.workspaces().at(-1)?.latest_build.status === 'stopped',
        'shows its stop',
      ),
    );
    streams.forEach((stream, index) =>
      assert.ok(stream.workspaces().every((w) => w.id === workspaces[index]?.id && w.name === workspaces[index]?.name)),
    );
    assert.deepEqual(
      streams.map((stream) => stream.errors()),
      workspaces.map(() => []),
    );
  });

  it('shows a deleted workspace as deleted, and says so when the workspace is gone altogether', async () => {
    const workspace = await runningWorkspace('doomed');
    const streams = [await watch(alice, workspace.id), await watch(alice, workspace.id)];
    await eventually(() => assertEvery(streams, (stream) => stream.workspaces().length >= 1, 'has its first answer'));
    await finished(alice, await alice.createWorkspaceBuild(workspace.id, { transition: 'delete' }));
    await eventually(() =>
      assertEvery(streams, (stream) => stream.workspaces().at(-1)?.latest_build.status === 'deleted', 'shows the workspace deleted'),
    );

    // The API keeps deleted rows; a row removed beneath the daemon (by another replica's cleanup, say)
    // must end in an error rather than silence.
    await test.daemon.store.db.deleteFrom('workspaces').where('id', '=', workspace.id).execute();
    await test.daemon.store.pubsub.publish(workspaceEventsChannel(workspace.id), 'build');
    await eventually(() => assertEvery(streams, (stream) => stream.errors().at(-1) === 'The workspace is gone.', 'says it is gone'));
    await Promise.all(streams.map((stream) => stream.close()));
    await eventually(async () => assert.deepEqual(await watchCounts(), { watchers: 0, groups: 0 }));
  });
});
