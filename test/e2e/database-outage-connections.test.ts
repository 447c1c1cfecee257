import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/database.js';
import { databaseFailure } from '../../src/store/db-errors.js';
import { PostgresPubSub } from '../../src/store/pg-pubsub.js';
import { eventually } from '../helpers/eventually.js';
import { createPostgresCluster, postgresBinaries, type PostgresCluster } from '../helpers/postgres-cluster.js';

const binaries = postgresBinaries();
const skip =
  binaries === undefined && process.env['COVE_REQUIRE_PG'] !== '1' ? 'no PostgreSQL server binaries to run a cluster of its own' : false;

/**
 * The store's own PostgreSQL connections, each held at the moment the server goes away: a process
 * that crashes here (an 'error' event nobody listens to) fails the whole file.
 */
describe('PostgreSQL connections the server drops', { skip }, () => {
  let cluster: PostgresCluster | undefined;

  before(async () => {
    if (!binaries) throw new Error('COVE_REQUIRE_PG=1, but there are no PostgreSQL server binaries in /usr/lib/postgresql');
    cluster = await createPostgresCluster(binaries, 'connections_superuser');
  });
  after(() => cluster?.destroy());

  it('a connection held between statements fails its next statement as unavailable, and the pool serves again once the server is back', async () => {
    assert.ok(cluster);
    const server = cluster;
    const { db } = await openDatabase({ kind: 'postgres', url: server.url });
    try {
      await db.connection().execute(async (held) => {
        await sql`select 1`.execute(held);
        // The server goes away while this connection is checked out and idle, as between a
        // transaction's statements: its client is told with an 'error' event.
        server.stopImmediately();
        const failed = await eventually(
          async () => {
            const error = await sql`select 1`.execute(held).then(
              () => undefined,
              (caught: unknown) => caught,
            );
            assert.ok(error, 'a statement on a dropped connection succeeded');
            return error;
          },
          10_000,
          50,
        );
        assert.equal(databaseFailure(failed), 'unavailable', String(failed));
      });
      const refused = await sql`select 1`.execute(db).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.equal(databaseFailure(refused), 'unavailable', String(refused));
      server.start();
      await eventually(async () => assert.equal((await sql<{ one: number }>`select 1 as one`.execute(db)).rows[0]?.one, 1), 10_000, 50);
    } finally {
      // The next test needs it running.
      if (!server.running) server.start();
      await db.destroy();
    }
  });

  it('the listening connection comes back by itself and listens again to what was subscribed', async () => {
    assert.ok(cluster);
    const server = cluster;
    const listener = await PostgresPubSub.connect(server.url);
    const sender = await PostgresPubSub.connect(server.url);
    try {
      const heard: string[] = [];
      let resumed = 0;
      listener.onResume(() => resumed++);
      await listener.subscribe('workspace:one', (payload) => heard.push(payload));
      server.stopImmediately();
      // While it is down a new subscription fails as the database being unavailable, at once.
      const refused = await listener
        .subscribe('provisioner_job:two', () => undefined)
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.equal(databaseFailure(refused), 'unavailable', String(refused));
      server.start();
      // The sender announces itself again too: until both are back, a message may find nobody listening.
      await eventually(
        async () => {
          await sender.publish('workspace:one', 'after');
          assert.ok(heard.includes('after'), `heard ${JSON.stringify(heard)}`);
        },
        10_000,
        200,
      );
      assert.ok(resumed >= 1, 'the resume listeners were not told');
      const again = await listener.subscribe('provisioner_job:two', (payload) => heard.push(payload));
      await eventually(
        async () => {
          await sender.publish('provisioner_job:two', 'second');
          assert.ok(heard.includes('second'));
        },
        10_000,
        200,
      );
      await again();
    } finally {
      // The next test needs it running.
      if (!server.running) server.start();
      await listener.close();
      await sender.close();
    }
  });
});
