import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { daemonTakesJob, normalizeTags, type ProvisionerTags } from '../../src/domain/provisioner-tags.js';
import { createTar } from '../../src/lib/archive/index.js';
import { newId } from '../../src/lib/random.js';
import { SYSTEM_SUBJECTS } from '../../src/rbac/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { AuthorizedStore } from '../../src/store/authorized-store.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Job tag sets, as a template version asks for them (normalized by the daemon). */
const JOB_TAGS: readonly ProvisionerTags[] = [
  {},
  { pool: 'gpu' },
  { pool: 'gpu', region: 'eu' },
  { pool: 'cpu' },
  { region: 'eu' },
  { pool: '' },
  { 'odd "key"': 'quote " and \\ backslash' },
];

/** Daemon tag sets, in canonical form as connected daemons carry them. */
const DAEMON_TAGS: readonly ProvisionerTags[] = (
  [
    {},
    { pool: 'gpu' },
    { pool: 'gpu', region: 'eu' },
    { pool: 'gpu', region: 'us' },
    { region: 'eu', extra: 'x' },
    { pool: '' },
    { 'odd "key"': 'quote " and \\ backslash' },
  ] as ProvisionerTags[]
).map((tags) => normalizeTags('', tags));

describe('claiming the next provisioner job', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let provisioner: AuthorizedStore;
  let organizationId: string;

  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    provisioner = test.daemon.store.as(SYSTEM_SUBJECTS.provisionerDaemon);
    organizationId = (await owner.organization('default')).id;
  });
  after(() => test?.close());

  /** Queues one import job per tag set; returns their ids, oldest first. */
  async function queueJobs(tagSets: readonly ProvisionerTags[]): Promise<string[]> {
    const ids: string[] = [];
    for (const tags of tagSets) {
      const { id } = await owner.uploadFile(await createTar({ 'echo.json': '{}', 'nonce.txt': newId() }));
      const version = await owner.createTemplateVersion('default', { file_id: id, tags: { ...tags } });
      ids.push(version.job.id);
      // The test clock stands still: a step apart, the jobs' queue order is the order made.
      test.clock.advance(1);
    }
    return ids;
  }

  async function drain(): Promise<void> {
    for (const tags of DAEMON_TAGS) {
      while (await provisioner.provisionerJobs.claimNext(organizationId, { workerId: newId(), provisioners: ['echo'], tags }));
    }
  }

  it('gives each daemon exactly the jobs the tag rule lets it take, oldest first', async () => {
    for (const daemonTags of DAEMON_TAGS) {
      await drain();
      const ids = await queueJobs(JOB_TAGS);
      const expected = ids.filter((_, i) => daemonTakesJob(daemonTags, normalizeTags('', JOB_TAGS[i])));
      const claimed: string[] = [];
      const workerId = newId();
      for (;;) {
        const job = (await provisioner.provisionerJobs.claimNext(organizationId, { workerId, provisioners: ['echo'], tags: daemonTags }))
          ?.job;
        if (!job) break;
        assert.equal(job.worker_id, workerId);
        assert.notEqual(job.started_at, null);
        claimed.push(job.id);
      }
      assert.deepEqual(claimed, expected, `daemon tags ${JSON.stringify(daemonTags)}`);
    }
  });

  it('takes no job of a provisioner type the daemon does not run', async () => {
    await drain();
    await queueJobs([{}]);
    const untagged = normalizeTags('', {});
    assert.equal(
      await provisioner.provisionerJobs.claimNext(organizationId, { workerId: newId(), provisioners: ['terraform'], tags: untagged }),
      undefined,
    );
    assert.equal(
      await provisioner.provisionerJobs.claimNext(organizationId, { workerId: newId(), provisioners: [], tags: untagged }),
      undefined,
    );
    const found = await provisioner.provisionerJobs.claimNext(organizationId, {
      workerId: newId(),
      provisioners: ['echo'],
      tags: untagged,
    });
    assert.ok(found);
    // The claim reads what running the job needs with it: the archive and the initiator's name.
    assert.ok(found.context.file && found.context.file.id === found.job.file_id && found.context.file.data.length > 0);
    assert.equal(found.context.initiatorUsername, (await provisioner.users.get(found.job.initiator_id)).username);
  });

  it("shows each pending job's place per online daemon that could run it, across every kind in the queue", async () => {
    await drain();
    const now = test.clock.now().toISOString();
    const daemons = DAEMON_TAGS.map((tags) => ({ id: newId(), tags }));
    for (const { id, tags } of daemons) {
      await provisioner.provisionerDaemons.register({
        id,
        organization_id: organizationId,
        name: `queue-${id}`,
        provisioners: '["echo"]',
        tags: JSON.stringify(tags),
        key_id: null,
        version: '',
        api_version: '1.0',
        created_at: now,
        last_seen_at: now,
      });
    }
    // Every kind twice, so that jobs of other kinds stand between the two of each.
    await queueJobs([...JOB_TAGS, ...JOB_TAGS]);
    const pending = (await owner.provisionerJobs('default', { status: 'pending', limit: 100 })).sort(
      (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
    );
    assert.ok(pending.length >= 2 * JOB_TAGS.length);
    // The rule, job by job: a daemon's queue is the pending jobs it could run, in order; a job's
    // position is its best rank in a queue it is in, and its size the longest such queue.
    const expected = pending.map((job) => {
      let position = 0;
      let size = 0;
      for (const daemon of daemons) {
        const queue = pending.filter((other) => daemonTakesJob(daemon.tags, other.tags)).map((other) => other.id);
        const rank = queue.indexOf(job.id);
        if (rank < 0) continue;
        position = position === 0 ? rank + 1 : Math.min(position, rank + 1);
        size = Math.max(size, queue.length);
      }
      return [job.id, position, size];
    });
    assert.ok(
      expected.some(([, position]) => typeof position === 'number' && position > 2),
      'some job waits behind others of its daemons',
    );
    assert.deepEqual(
      pending.map((job) => [job.id, job.queue_position, job.queue_size]),
      expected,
    );
  });

  it('hands concurrent claimants different jobs, each job once', async () => {
    await drain();
    const ids = await queueJobs(Array.from({ length: 12 }, () => ({})));
    const untagged = normalizeTags('', {});
    const claims = await Promise.all(
      Array.from({ length: 16 }, () =>
        provisioner.provisionerJobs.claimNext(organizationId, { workerId: newId(), provisioners: ['echo'], tags: untagged }),
      ),
    );
    const claimed = claims.flatMap((found) => (found ? [found.job.id] : []));
    assert.equal(new Set(claimed).size, claimed.length, 'no job claimed twice');
    assert.deepEqual([...claimed].sort(), [...ids].sort());
  });
});
