import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { LISTENER_APPLICATION_NAME } from '../../src/store/pg-pubsub.js';
import { NEEDS_POSTGRES } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Just after a database outage the pool may serve again while the connection that listens for
 * notifications is still being opened. A job claimed then must still reach the provisioner daemon
 * that asked for it: before, following the job's events failed, the claimed job was never sent,
 * and its build stayed "starting" until the hang detector failed it minutes later.
 */
describe('a job claimed while the notification connection is down', { skip: NEEDS_POSTGRES }, () => {
  let test: TestDaemon | undefined;
  let admin: pg.Client | undefined;
  let database = '';

  before(async () => {
    test = await startTestDaemon({ database: 'postgres', flags: { provisionerDaemons: '1' } });
    const target = test.database.target;
    assert.equal(target.kind, 'postgres');
    admin = new pg.Client({ connectionString: target.url });
    await admin.connect();
    database = (await admin.query<{ name: string }>('select current_database() as name')).rows[0]?.name ?? '';
  });

  after(async () => {
    await admin?.query(`alter database ${quote(database)} connection limit -1`).catch(() => undefined);
    await admin?.end();
    await test?.close();
  });

  it('is sent to the daemon and runs, and the build finishes', async () => {
    assert.ok(test && admin);
    const owner = await createOwner(test);
    const { template } = await createEchoTemplate(owner, 'echo', {});
    const workspace = await owner.createWorkspace('me', { template_id: template.id, name: 'dev' });
    await eventually(async () => assert.equal((await owner.workspace(workspace.id)).latest_build.status, 'running'), 20_000, 100);
    // The pool keeps connections it has opened: several of them, so the build below needs no new one.
    await Promise.all(Array.from({ length: 8 }, () => owner.workspaces()));

    // No new connection to this database from now on (its owner is no superuser, so the limit holds
    // for the daemon too); then the listening connection is cut, and cannot come back.
    await admin.query(`alter database ${quote(database)} connection limit 0`);
    const cut = await admin.query<{ ok: boolean }>(
      'select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and application_name = $1',
      [LISTENER_APPLICATION_NAME],
    );
    assert.deepEqual(
      cut.rows.map((row) => row.ok),
      [true],
      'exactly one listening connection was cut',
    );

    const build = await owner.createWorkspaceBuild(workspace.id, { transition: 'stop' });
    await eventually(
      async () => {
        const now = (await owner.workspace(workspace.id)).latest_build;
        assert.equal(now.id, build.id);
        assert.equal(now.status, 'stopped', `the build is ${now.status}`);
      },
      15_000,
      200,
    );
    // Nothing listens yet: the build's end was found by reading, not by a notification.
    const listening = await admin.query('select 1 from pg_stat_activity where datname = current_database() and application_name = $1', [
      LISTENER_APPLICATION_NAME,
    ]);
    assert.equal(listening.rowCount, 0, 'the listening connection came back despite the limit');

    // Once connections are allowed again, the listening connection comes back by itself.
    await admin.query(`alter database ${quote(database)} connection limit -1`);
    await eventually(
      async () => {
        const back = await admin!.query('select 1 from pg_stat_activity where datname = current_database() and application_name = $1', [
          LISTENER_APPLICATION_NAME,
        ]);
        assert.equal(back.rowCount, 1);
      },
      10_000,
      100,
    );
  });
});

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
