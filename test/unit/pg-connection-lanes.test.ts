import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { connectionLanes } from '../../src/store/pg-connection-lanes.js';

/** pg's pool as the lanes see it: counts the clients out, and fails a connect when told to. */
function countingPool(): PostgresPool & { out: number; most: number; failNext: boolean } {
  const pool = {
    out: 0,
    most: 0,
    failNext: false,
    async connect(): Promise<PostgresPoolClient> {
      if (pool.failNext) {
        pool.failNext = false;
        throw new Error('connection refused');
      }
      pool.out++;
      pool.most = Math.max(pool.most, pool.out);
      return {
        query: (async () => ({ rows: [] })) as unknown as PostgresPoolClient['query'],
        release: () => void pool.out--,
      };
    },
    end: async () => undefined,
  };
  return pool;
}

/** Connects through `lane`, recording the name once a connection is given. */
function take(lane: PostgresPool, name: string, order: string[]): Promise<PostgresPoolClient> {
  return lane.connect().then((client) => {
    order.push(name);
    return client;
  });
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('connection lanes', () => {
  it('gives the next free connection to the urgent lane first, each lane in order of arrival', async () => {
    const pool = countingPool();
    const lanes = connectionLanes(pool, 2);
    const order: string[] = [];
    const held = [await take(lanes.normal, 'first', order), await take(lanes.normal, 'second', order)];
    const waiting = [
      take(lanes.normal, 'normal 1', order),
      take(lanes.normal, 'normal 2', order),
      take(lanes.urgent, 'urgent 1', order),
      take(lanes.urgent, 'urgent 2', order),
    ];
    await turn();
    assert.deepEqual(order, ['first', 'second'], 'no third connection while two are out');
    for (const client of held) client.release();
    await turn();
    assert.deepEqual(order.slice(2), ['urgent 1', 'urgent 2']);
    const next = await Promise.all(waiting.slice(2));
    for (const client of next) client.release();
    const rest = await Promise.all(waiting.slice(0, 2));
    assert.deepEqual(order.slice(4), ['normal 1', 'normal 2']);
    for (const client of rest) client.release();
    assert.equal(pool.most, 2, 'never more than the size out of the pool');
    assert.equal(pool.out, 0);
  });

  it('lets a waiting normal caller through after three urgent ones in a row', async () => {
    const pool = countingPool();
    const lanes = connectionLanes(pool, 1);
    const order: string[] = [];
    let client = await take(lanes.normal, 'first', order);
    const names = ['normal', 'urgent 1', 'urgent 2', 'urgent 3', 'urgent 4', 'urgent 5'];
    const waiting = new Map(names.map((name) => [name, take(name === 'normal' ? lanes.normal : lanes.urgent, name, order)]));
    await turn();
    while (order.length < 1 + names.length) {
      const given = order.length;
      client.release();
      while (order.length === given) await turn();
      client = await waiting.get(order.at(-1) ?? '')!;
    }
    client.release();
    assert.deepEqual(order, ['first', 'urgent 1', 'urgent 2', 'urgent 3', 'normal', 'urgent 4', 'urgent 5']);
    assert.equal(pool.out, 0);
  });

  it('counts a connection released twice once, and frees the place of a connect that failed', async () => {
    const pool = countingPool();
    const lanes = connectionLanes(pool, 1);
    const order: string[] = [];
    const client = await take(lanes.normal, 'first', order);
    pool.failNext = true;
    const failing = lanes.urgent.connect();
    const after = take(lanes.normal, 'after the failure', order);
    client.release();
    client.release();
    await assert.rejects(failing, /connection refused/);
    (await after).release();
    // Had the double release or the failure leaked a place, two connections would be out here.
    const [a, b] = [take(lanes.normal, 'a', order), take(lanes.normal, 'b', order)];
    await turn();
    assert.deepEqual(order, ['first', 'after the failure', 'a']);
    (await a).release();
    (await b).release();
    assert.equal(pool.most, 1);
  });
});
