import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { WebSocket } from 'ws';
import { createTar } from '../../src/lib/archive/index.js';
import { newId } from '../../src/lib/random.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { dialProvisionerDaemon } from '../../src/sdk/provisioner-daemon-socket.js';
import type { ServerMessage, TemplateVersion } from '../../src/sdk/wire/index.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

async function echoVersion(client: CoveClient, echo: unknown, tags?: Record<string, string>): Promise<TemplateVersion> {
  const { id } = await client.uploadFile(await createTar({ 'echo.json': JSON.stringify(echo), 'nonce.txt': newId() }));
  return client.createTemplateVersion('default', { file_id: id, ...(tags ? { tags } : {}) });
}

/** Polls a version until its job reaches `status`, or fails after a few seconds. */
async function waitForStatus(client: CoveClient, id: string, status: string): Promise<TemplateVersion> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const version = await client.templateVersion(id);
    if (version.job.status === status) return version;
    if (Date.now() > deadline) assert.fail(`job of ${id} is ${version.job.status}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Reads protocol messages off a provisioner daemon socket, one at a time. */
function messages(socket: WebSocket): () => Promise<ServerMessage> {
  const queue: ServerMessage[] = [];
  const waiting: ((message: ServerMessage) => void)[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as ServerMessage;
    const next = waiting.shift();
    if (next) next(message);
    else queue.push(message);
  });
  return () => {
    const queued = queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no message within 5 s')), 5000);
      waiting.push((message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
  };
}

describe('provisioner jobs with one busy built-in daemon', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('reports queue positions while the daemon is busy, and cancels through canceling to canceled', async () => {
    const running = await echoVersion(owner, { parse: { hang: true } });
    await waitForStatus(owner, running.id, 'running');
    // The queue is ordered by creation time; the test clock only moves when told to.
    test.clock.advance(1000);
    const second = await echoVersion(owner, {});
    test.clock.advance(1000);
    const third = await echoVersion(owner, {});
    const [secondNow, thirdNow] = [await owner.templateVersion(second.id), await owner.templateVersion(third.id)];
    assert.deepEqual([secondNow.job.queue_position, secondNow.job.queue_size], [1, 2]);
    assert.deepEqual([thirdNow.job.queue_position, thirdNow.job.queue_size], [2, 2]);
    assert.equal(secondNow.matched_provisioners?.count, 1);

    await owner.cancelTemplateVersion(third.id);
    assert.equal((await owner.templateVersion(third.id)).job.status, 'canceled', 'a job nobody took ends at once');
    await owner.cancelTemplateVersion(running.id);
    const canceling = await owner.templateVersion(running.id);
    assert.ok(['canceling', 'canceled'].includes(canceling.job.status), canceling.job.status);
    const canceled = await waitForStatus(owner, running.id, 'canceled');
    assert.equal(canceled.job.error, undefined);
    await expectApiError(owner.cancelTemplateVersion(running.id), 400);
    await waitForStatus(owner, second.id, 'succeeded');

    const jobs = await owner.provisionerJobs('default', { status: 'canceled' });
    assert.deepEqual(jobs.map((job) => job.id).sort(), [running.job.id, third.job.id].sort());
    assert.deepEqual(
      (await owner.provisionerJobs('default', { ids: second.job.id })).map((job) => job.status),
      ['succeeded'],
    );
    assert.equal((await owner.provisionerJobs('default', { limit: 1 })).length, 1);
    assert.equal((await owner.provisionerJob('default', second.job.id)).metadata.template_version_name, second.name);
    await expectApiError(owner.provisionerJobs('default', { status: 'sleeping' }), 400);
    await expectApiError(owner.provisionerJobs('default', { tags: '[1]' }), 400);
    const daemons = await owner.provisionerDaemons('default');
    assert.deepEqual(
      daemons.map((d) => [d.name, d.status]),
      [[`built-in-1@${test.daemon.replica.name}`, 'idle']],
    );
  });

  it("shows a queued build's place in the queue in every workspace answer", async () => {
    const { template } = await createEchoTemplate(owner, 'queued', {});
    const built = await owner.createWorkspace('me', { name: 'built', template_id: template.id });
    await owner.followWorkspaceBuildLogs(built.latest_build.id, () => undefined);
    const running = await echoVersion(owner, { parse: { hang: true } });
    await waitForStatus(owner, running.id, 'running');
    test.clock.advance(1000);
    const first = await owner.createWorkspace('me', { name: 'first', template_id: template.id });
    test.clock.advance(1000);
    const second = await owner.createWorkspace('me', { name: 'second', template_id: template.id });
    const place = (workspace: { latest_build: { job: { status: string; queue_position: number; queue_size: number } } }) => {
      const { job } = workspace.latest_build;
      return [job.status, job.queue_position, job.queue_size];
    };
    assert.deepEqual(place(first), ['pending', 1, 1], 'the answer to the first create');
    assert.deepEqual(place(second), ['pending', 2, 2], 'the answer to the second create');
    // A new build's answer, made from what its insert wrote and read, is the build as read back.
    // Queued in the same millisecond as the second, it is ordered against it by id, in the answer as in the database.
    const stop = await owner.createWorkspaceBuild(built.id, { transition: 'stop' });
    assert.equal(stop.job.status, 'pending');
    assert.equal(stop.job.queue_size, 3);
    assert.equal(stop.job.queue_position, stop.job.id < second.latest_build.job.id ? 2 : 3);
    assert.deepEqual(stop, await owner.workspaceBuild(stop.id));
    const secondPlace = stop.job.queue_position === 2 ? 3 : 2;
    assert.deepEqual(place(await owner.workspace(first.id)), ['pending', 1, 3]);
    assert.deepEqual(place(await owner.workspace(second.id)), ['pending', secondPlace, 3]);
    const listed = (await owner.workspaces()).workspaces.filter((w) => w.template_id === template.id);
    assert.deepEqual(listed.map(place).sort(), [
      ['pending', 1, 3],
      ['pending', 2, 3],
      ['pending', 3, 3],
    ]);

    await owner.cancelTemplateVersion(running.id);
    await waitForStatus(owner, running.id, 'canceled');
    for (const { id } of [first, second, built])
      await owner.followWorkspaceBuildLogs((await owner.workspace(id)).latest_build.id, () => undefined);
    assert.deepEqual(place(await owner.workspace(second.id)), ['succeeded', 0, 0], 'a finished job has no place');
  });
});

describe('external provisioner daemons', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '0' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('hands a keyed daemon only the jobs tagged for it, and refuses bad keys', async () => {
    const { key } = await owner.createProvisionerKey('default', { name: 'special', tags: { pool: 'special' } });
    await assert.rejects(
      dialProvisionerDaemon({
        url: test.url,
        organization: 'default',
        id: newId(),
        name: 'x',
        provisioners: ['echo'],
        tags: {},
        key: 'wrong',
      }),
      /401/,
    );
    const socket = await dialProvisionerDaemon({
      url: test.url,
      organization: 'default',
      id: newId(),
      name: 'special-1',
      provisioners: ['echo'],
      tags: {},
      key,
    });
    try {
      const next = messages(socket);
      // More untagged jobs ahead of it than one read of the queue holds: the daemon must look further.
      const untaggedJobs: TemplateVersion[] = [];
      for (let i = 0; i < 20; i++) untaggedJobs.push(await echoVersion(owner, {}));
      const untagged = untaggedJobs[0] as TemplateVersion;
      test.clock.advance(1000);
      const tagged = await echoVersion(owner, {}, { pool: 'special' });
      socket.send(JSON.stringify({ type: 'acquire' }));
      const got = await next();
      assert.equal(got.type, 'job');
      assert.equal(got.type === 'job' ? got.job.job_id : '', tagged.job.id, 'the tagged job, not the older untagged one');
      assert.equal((await owner.templateVersion(tagged.id)).job.worker_name, 'special-1');
      assert.equal((await owner.templateVersion(untagged.id)).job.status, 'pending');

      socket.send(
        JSON.stringify({
          type: 'update',
          job_id: tagged.job.id,
          logs: [
            {
              created_at: new Date().toISOString(),
              level: 'info',
              source: 'provisioner',
              stage: 'Parsing template parameters',
              output: 'hello',
            },
          ],
        }),
      );
      assert.deepEqual(await next(), { type: 'update_ack', job_id: tagged.job.id, canceled: false });
      socket.send(JSON.stringify({ type: 'update', job_id: untagged.job.id, logs: [] }));
      assert.deepEqual(
        await next(),
        { type: 'error', message: "You don't own this job.", job_id: untagged.job.id },
        'a job it does not hold',
      );
      socket.send('{"type":"complete"}');
      assert.equal((await next()).type, 'error', 'a malformed message');
      const imported = {
        type: 'template_version_import',
        readme: 'hi',
        variables: [],
        parameters: [],
        presets: [],
        external_auth: [],
        start_resources: [],
        stop_resources: [],
      };
      // The report asks for the next job: it comes after the ack, with no acquire of its own.
      const taggedNext = await echoVersion(owner, {}, { pool: 'special' });
      socket.send(JSON.stringify({ type: 'complete', job_id: tagged.job.id, result: imported, acquire: true }));
      assert.deepEqual(await next(), { type: 'ack', job_id: tagged.job.id });
      const handed = await next();
      assert.equal(handed.type === 'job' ? handed.job.job_id : handed.type, taggedNext.job.id);
      assert.equal((await owner.templateVersion(taggedNext.id)).job.status, 'running');
      // A report the server cannot take names its job, so that the daemon can drop it.
      socket.send(JSON.stringify({ type: 'complete', job_id: tagged.job.id, result: imported, acquire: true }));
      assert.deepEqual(await next(), { type: 'error', message: 'The job is already finished.', job_id: tagged.job.id });
      const done = await owner.templateVersion(tagged.id);
      assert.equal(done.job.status, 'succeeded');
      assert.equal(done.readme, 'hi');
      assert.deepEqual(
        (await owner.templateVersionLogs(tagged.id)).map((log) => log.output),
        ['hello'],
      );
      for (const version of [...untaggedJobs, taggedNext]) await owner.cancelTemplateVersion(version.id);
    } finally {
      socket.close();
    }
  });

  it('fails jobs whose daemon went silent, and jobs no daemon took', async () => {
    const { key } = await owner.createProvisionerKey('default', { name: 'silent' });
    const socket = await dialProvisionerDaemon({
      url: test.url,
      organization: 'default',
      id: newId(),
      name: 'silent-1',
      provisioners: ['echo'],
      tags: {},
      key,
    });
    try {
      const next = messages(socket);
      const held = await echoVersion(owner, {});
      socket.send(JSON.stringify({ type: 'acquire' }));
      assert.equal((await next()).type, 'job');
      socket.send(
        JSON.stringify({
          type: 'update',
          job_id: held.job.id,
          logs: [{ created_at: new Date().toISOString(), level: 'info', source: 'provisioner_daemon', stage: 'Setting up', output: '' }],
        }),
      );
      await next();
      const orphan = await echoVersion(owner, {}, { pool: 'nobody' });

      test.clock.advance(4 * 60 * 1000);
      await test.daemon.tasks.jobReaper.runNow();
      assert.equal((await owner.templateVersion(held.id)).job.status, 'running', 'not yet hung');
      test.clock.advance(2 * 60 * 1000);
      await test.daemon.tasks.jobReaper.runNow();
      const reaped = await owner.templateVersion(held.id);
      assert.equal(reaped.job.status, 'failed');
      assert.match(reaped.job.error ?? '', /hung for 5 minutes/);
      const logs = await owner.templateVersionLogs(held.id);
      assert.ok(logs.some((log) => log.log_level === 'error' && log.stage === 'Setting up' && /hung/.test(log.output)));
      assert.equal((await owner.templateVersion(orphan.id)).job.status, 'pending');
      test.clock.advance(30 * 60 * 1000);
      await test.daemon.tasks.jobReaper.runNow();
      assert.match((await owner.templateVersion(orphan.id)).job.error ?? '', /pending for 30 minutes/);
    } finally {
      socket.close();
    }
  });
});
