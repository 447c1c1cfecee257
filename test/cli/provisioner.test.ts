import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { CoveClient } from '../../src/sdk/client.js';
import type { ProvisionerDaemon, ProvisionerJob, ProvisionerKey } from '../../src/sdk/wire/index.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** Polls `read` until `done` holds for its answer, or fails after a deadline. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await delay(25);
  }
}

describe('cove provisioner', () => {
  let test: TestDaemon;
  let client: CoveClient;
  const admin = new CliUser();
  const work = mkdtempSync(join(tmpdir(), 'cove-provisioner-'));

  before(async () => {
    // No built-in daemons: the only one is the one the test starts with the CLI.
    test = await startTestDaemon({ flags: { provisionerDaemons: '0' } });
    await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
    client = new CoveClient({ url: test.url, token: admin.savedToken() });
  });
  after(async () => test.close());

  it('creates, lists and deletes keys', async () => {
    const created = await admin.run('provisioner', 'keys', 'create', 'temporary', '--tag', 'pool=a', '--tag', 'zone=b');
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout.trim(), /^\S{20,}$/);
    assert.match(created.stderr, /will not be shown again/);
    const listed = JSON.parse((await admin.run('provisioner', 'keys', 'list', '-o', 'json')).stdout) as ProvisionerKey[];
    assert.deepEqual(listed.find((k) => k.name === 'temporary')?.tags, { pool: 'a', zone: 'b' });
    assert.match((await admin.run('provisioner', 'keys', 'list')).stdout, /temporary\s+pool=a zone=b/);
    const deleted = await admin.run('provisioner', 'keys', 'delete', 'temporary', '-y');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal((JSON.parse((await admin.run('provisioner', 'keys', 'list', '-o', 'json')).stdout) as ProvisionerKey[]).length, 0);
  });

  it('refuses to start with a bad key', async () => {
    const started = await admin.run('provisioner', 'start', '--key', 'not-a-key', '--cache-dir', work);
    assert.equal(started.code, 1);
    assert.match(started.stderr, /provisioner key is not valid/);
  });

  it('runs a tagged daemon that takes tagged jobs only, and keeps its id across restarts', async () => {
    const created = await admin.run('provisioner', 'keys', 'create', 'k1', '--tag', 'pool=special', '-o', 'json');
    assert.equal(created.code, 0, created.stderr);
    const { key } = JSON.parse(created.stdout) as { key: string };

    const special = join(work, 'special');
    mkdirSync(special);
    writeFileSync(join(special, 'echo.json'), '{}');
    const plain = join(work, 'plain');
    mkdirSync(plain);
    writeFileSync(join(plain, 'echo.json'), '{}');

    // The daemon stops by itself after one job: the test's way to end a foreground command in-process.
    const daemon = admin.run(
      'provisioner',
      'start',
      '--key',
      key,
      '--name',
      'special-1',
      '--provisioner',
      'echo',
      '--cache-dir',
      work,
      '--exit-after-jobs',
      '1',
    );
    const [online] = await eventually(
      () => client.provisionerDaemons('default'),
      (daemons) => daemons.some((d) => d.status === 'idle'),
      'the daemon to connect',
    );
    assert.equal(online?.name, 'special-1');
    assert.equal(online?.key_name, 'k1');
    assert.deepEqual(online?.provisioners, ['echo']);
    assert.equal(online?.tags['pool'], 'special');

    // Untagged first, so the daemon skips past it to the tagged one.
    const untagged = admin.run('templates', 'push', plain, '-y');
    const pending = await eventually(
      () => client.provisionerJobs('default', { status: 'pending' }),
      (jobs) => jobs.length === 1,
      'the untagged job to be queued',
    );
    const tagged = await admin.run('templates', 'push', special, '-y', '--provisioner-tag', 'pool=special');
    assert.equal(tagged.code, 0, tagged.stderr + tagged.stdout);
    assert.match(tagged.stdout, /Template "special" is now at version/);

    const stopped = await daemon;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stderr, /provisioner daemon stopped/);

    const waiting = pending[0] as ProvisionerJob;
    const version = await client.templateVersion(waiting.input.template_version_id ?? '');
    assert.equal(version.job.status, 'pending', 'the tagged daemon left the untagged job alone');
    await client.cancelTemplateVersion(version.id);
    const canceled = await untagged;
    assert.equal(canceled.code, 1);
    assert.match(canceled.stderr, /was canceled/);

    const listed = await admin.run('provisioner', 'list');
    assert.match(listed.stdout, /^NAME\s+STATUS\s+KEY/);
    assert.match(listed.stdout, /special-1\s+\w+\s+k1\s+echo\s+pool=special/);

    // A restart with the same name reuses the id kept in the config directory: still one row.
    const ids = JSON.parse(readFileSync(join(admin.configDir, 'provisioner-daemons.json'), 'utf8')) as Record<string, string>;
    assert.equal(Object.keys(ids).length, 1);
    const restarted = admin.run(
      'provisioner',
      'start',
      '--key',
      key,
      '--name',
      'special-1',
      '--provisioner',
      'echo',
      '--cache-dir',
      work,
      '--exit-after-jobs',
      '1',
    );
    await eventually(
      () => client.provisionerDaemons('default'),
      (daemons) => daemons.some((d) => d.status === 'idle'),
      'the restarted daemon to connect',
    );
    const again = await admin.run('templates', 'push', special, '-y', '--provisioner-tag', 'pool=special', '--version-name', 'again');
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.equal((await restarted).code, 0);
    const daemons = JSON.parse((await admin.run('provisioner', 'list', '-o', 'json')).stdout) as ProvisionerDaemon[];
    assert.deepEqual(
      daemons.map((d) => d.id),
      [Object.values(ids)[0]],
    );
  });
});
