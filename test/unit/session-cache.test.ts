import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SessionCache, type CachedSession } from '../../src/store/session-cache.js';

/** A load the test ends when it wants, counting how often it was started. */
function controlledLoad(): {
  load: () => Promise<CachedSession | undefined>;
  started: () => number;
  finish: (session: CachedSession | undefined) => void;
} {
  let count = 0;
  const pending: ((session: CachedSession | undefined) => void)[] = [];
  return {
    load: () => {
      count++;
      return new Promise((resolve) => pending.push(resolve));
    },
    started: () => count,
    finish: (session) => {
      for (const resolve of pending.splice(0)) resolve(session);
    },
  };
}

const session = { apiKey: { id: 'key-1' }, user: { id: 'user-1' }, subject: {} } as unknown as CachedSession;

describe('the session cache', () => {
  it('reads a session once for every request that asks while it is being read', async () => {
    const cache = new SessionCache(60_000);
    const reading = controlledLoad();
    const asked = Array.from({ length: 5 }, () => cache.load('key-1', reading.load));
    assert.equal(reading.started(), 1, 'five requests at once, one read');
    reading.finish(session);
    for (const answer of await Promise.all(asked)) assert.equal(answer, session);
    // Once read, a later miss (the entry expired or was never kept) reads again.
    const again = cache.load('key-1', reading.load);
    assert.equal(reading.started(), 2);
    reading.finish(undefined);
    assert.equal(await again, undefined);
  });

  it('reads again for a request that comes after an invalidation, not the read that may have missed it', async () => {
    const cache = new SessionCache(60_000);
    const reading = controlledLoad();
    const before = cache.load('key-1', reading.load);
    cache.invalidate({ userId: 'user-1' });
    const after = cache.load('key-1', reading.load);
    assert.equal(reading.started(), 2);
    reading.finish(session);
    assert.equal(await before, session);
    assert.equal(await after, session);
  });
});
