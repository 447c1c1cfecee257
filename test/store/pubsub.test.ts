import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { PostgresPubSub } from '../../src/store/pg-pubsub.js';
import { MemoryPubSub, type PubSub } from '../../src/store/pubsub.js';
import { createTestDatabase, NEEDS_POSTGRES, PG_URL } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { startCuttableProxy } from '../helpers/cuttable-proxy.js';

function nextMessage(pubsub: PubSub, channel: string): Promise<{ payload: Promise<string>; stop: () => Promise<void> }> {
  let resolve: (value: string) => void = () => undefined;
  const payload = new Promise<string>((r) => (resolve = r));
  return pubsub.subscribe(channel, (message) => resolve(message)).then((stop) => ({ payload, stop }));
}

async function exercise(make: () => Promise<PubSub>): Promise<void> {
  const publisher = await make();
  const subscriber = await make();
  try {
    const first = await nextMessage(subscriber, 'workspace:1');
    const other = await nextMessage(subscriber, 'workspace:2');
    await publisher.publish('workspace:1', '{"id":1}');
    assert.equal(await first.payload, '{"id":1}');
    await first.stop();
    let lateDelivery = false;
    const stopLate = await subscriber.subscribe('workspace:1', () => (lateDelivery = true));
    await stopLate();
    await publisher.publish('workspace:1', 'after unsubscribe');
    await publisher.publish('workspace:2', 'two');
    assert.equal(await other.payload, 'two');
    assert.equal(lateDelivery, false);
    await other.stop();
  } finally {
    await publisher.close();
    await subscriber.close();
  }
}

describe('pubsub', () => {
  it('delivers in-process messages to subscribers of the channel only', async () => {
    const shared = new MemoryPubSub();
    await exercise(async () => shared);
  });

  it('delivers messages between PostgreSQL connections through LISTEN/NOTIFY', { skip: NEEDS_POSTGRES }, async () => {
    await exercise(() => PostgresPubSub.connect(PG_URL ?? ''));
  });

  it(
    'publishes through the pool and keeps apart the channels of one kind and a plain channel of the same name',
    { skip: NEEDS_POSTGRES },
    async () => {
      const pool = new pg.Pool({ connectionString: PG_URL ?? '', max: 2 });
      let pooled = 0;
      const notify = async (text: string, values: readonly string[]): Promise<void> => {
        pooled++;
        await pool.query(text, [...values]);
      };
      try {
        await exercise(() => PostgresPubSub.connect(PG_URL ?? '', notify));
        assert.ok(pooled >= 3, `${pooled} statements went through the pool`);
        const publisher = await PostgresPubSub.connect(PG_URL ?? '', notify);
        const subscriber = await PostgresPubSub.connect(PG_URL ?? '');
        try {
          const seen: string[] = [];
          const stops = await Promise.all(
            ['workspace', 'workspace:a', 'workspace:a:b', 'job:a'].map((channel) =>
              subscriber.subscribe(channel, (payload) => seen.push(`${channel}=${payload}`)),
            ),
          );
          await publisher.publish('workspace', 'plain');
          await publisher.publish('workspace:a', 'line one\nline two');
          await publisher.publish('workspace:a:b', 'nested');
          await publisher.publish('job:a', '');
          await publisher.publish('workspace:c', 'nobody listens');
          await eventually(() => assert.equal(seen.length, 4));
          assert.deepEqual(seen.sort(), ['job:a=', 'workspace:a:b=nested', 'workspace:a=line one\nline two', 'workspace=plain']);
          for (const stop of stops) await stop();

          // The publisher's own subscribers hear a message once: at once, and not again when it comes back.
          const own: string[] = [];
          const stopOwn = await publisher.subscribe('job:own', (payload) => own.push(payload));
          let heard: () => void = () => undefined;
          const heardByOther = new Promise<void>((resolve) => (heard = resolve));
          const stopOther = await subscriber.subscribe('job:own', () => heard());
          const sent = publisher.publish('job:own', 'mine');
          await Promise.resolve();
          assert.deepEqual(own, ['mine'], 'heard before the round trip');
          await sent;
          await heardByOther;
          await new Promise((resolve) => setTimeout(resolve, 100));
          assert.deepEqual(own, ['mine'], 'heard once');
          await stopOwn();
          await stopOther();

          // Messages published in one turn go out in one statement, in order, every one of them.
          const batch: string[] = [];
          const stopBatch = await subscriber.subscribe('job:b', (payload) => batch.push(payload));
          const before = pooled;
          const count = 150;
          await Promise.all(Array.from({ length: count }, (_, i) => publisher.publish('job:b', String(i))));
          assert.equal(pooled - before, Math.ceil(count / 64), 'statements for one turn of publishing');
          await eventually(() => assert.equal(batch.length, count));
          assert.deepEqual(
            batch,
            Array.from({ length: count }, (_, i) => String(i)),
          );
          await stopBatch();

          // While one statement is on its way, what is published over several turns waits and follows in one.
          const held: string[] = [];
          const stopHeld = await subscriber.subscribe('job:held', (payload) => held.push(payload));
          let release: () => void = () => undefined;
          const gate = new Promise<void>((resolve) => (release = resolve));
          let gated = 0;
          const slow = await PostgresPubSub.connect(PG_URL ?? '', async (text, values) => {
            gated++;
            if (gated === 1) await gate;
            await pool.query(text, [...values]);
          });
          try {
            const sends = [slow.publish('job:held', 'first')];
            await new Promise((resolve) => setImmediate(resolve));
            for (let turn = 0; turn < 5; turn++) {
              sends.push(slow.publish('job:held', `later ${turn}`));
              await new Promise((resolve) => setImmediate(resolve));
            }
            assert.equal(gated, 1, 'nothing more is sent while the first statement is on its way');
            release();
            await Promise.all(sends);
            assert.equal(gated, 2, 'the five later turns went out in one statement');
            await eventually(() => assert.equal(held.length, 6));
            assert.deepEqual(held, ['first', 'later 0', 'later 1', 'later 2', 'later 3', 'later 4']);
          } finally {
            await stopHeld();
            await slow.close();
          }
        } finally {
          await publisher.close();
          await subscriber.close();
        }
      } finally {
        await pool.end();
      }
    },
  );

  it('sends notifications only while another replica listens to the same database', { skip: NEEDS_POSTGRES }, async () => {
    // A database of its own: replicas of other tests must not count as listeners here.
    const database = await createTestDatabase('postgres');
    const url = database.target.kind === 'postgres' ? database.target.url : '';
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    let sent = 0;
    const notify = async (text: string, values: readonly string[]): Promise<void> => {
      sent++;
      await pool.query(text, [...values]);
    };
    const first = await PostgresPubSub.connect(url, notify, { recountMs: 50 });
    try {
      const own: string[] = [];
      const stopOwn = await first.subscribe('job:alone', (payload) => own.push(payload));
      await first.publish('job:alone', 'heard here');
      assert.deepEqual(own, ['heard here'], 'its own subscribers hear it');
      assert.equal(sent, 0, 'alone, nothing is sent');
      await stopOwn();

      // A second replica: once it is connected, the first one's very next message reaches it.
      const second = await PostgresPubSub.connect(url);
      const heard = await nextMessage(second, 'job:joined');
      await first.publish('job:joined', 'to the newcomer');
      assert.equal(await heard.payload, 'to the newcomer');
      assert.equal(sent, 1);
      await heard.stop();

      // Once it is gone, a count notices and the first one stops sending.
      await second.close();
      await eventually(async () => {
        const before = sent;
        await first.publish('job:gone', 'nobody');
        assert.equal(sent, before, 'nothing sent after the other replica left');
      });
    } finally {
      await first.close();
      await pool.end();
      await database.drop();
    }
  });
});

describe('the listening connection through a network cut', { skip: NEEDS_POSTGRES }, () => {
  /** A pubsub that reaches its own database through a proxy the test cuts, and a direct one beside it. */
  async function throughProxy(connectTimeoutMs?: number) {
    const database = await createTestDatabase('postgres');
    const direct = new URL(database.target.kind === 'postgres' ? database.target.url : '');
    const proxy = await startCuttableProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const proxied = new URL(direct);
    proxied.port = String(proxy.port);
    const pubsub = await PostgresPubSub.connect(proxied.toString(), undefined, connectTimeoutMs === undefined ? {} : { connectTimeoutMs });
    return {
      direct: direct.toString(),
      proxy,
      pubsub,
      close: async () => {
        await pubsub.close();
        await proxy.close();
        await database.drop();
      },
    };
  }

  it('answers a subscriber 08006 once its tries time out, not after TCP gives up', async () => {
    const world = await throughProxy(300);
    try {
      world.proxy.cut();
      await eventually(() => assert.ok(world.proxy.held > 0, 'a try to open the connection again is under way'));
      const asked = Date.now();
      await assert.rejects(
        world.pubsub.subscribe('job:during', () => undefined),
        (error: { code?: string }) => error.code === '08006',
      );
      // The try under way, then one begun after the subscriber asked: two timeouts at most.
      assert.ok(Date.now() - asked < 2_000, `answered after ${Date.now() - asked} ms`);
    } finally {
      await world.close();
    }
  });

  it('gives a subscriber who comes during a try begun before the database was back a try of its own', async () => {
    const world = await throughProxy();
    try {
      world.proxy.cut();
      await eventually(() => assert.ok(world.proxy.held > 0, 'a try to open the connection again is under way'));
      world.proxy.restore();
      let heard: (payload: string) => void = () => undefined;
      const message = new Promise<string>((resolve) => (heard = resolve));
      const subscribing = world.pubsub.subscribe('job:after', (payload) => heard(payload));
      // The try that began during the cut fails only now, after the subscriber asked.
      world.proxy.dropHeld();
      const stop = await subscribing;
      const publisher = await PostgresPubSub.connect(world.direct);
      try {
        await publisher.publish('job:after', 'back');
        assert.equal(await message, 'back');
      } finally {
        await publisher.close();
        await stop();
      }
    } finally {
      await world.close();
    }
  });
});
