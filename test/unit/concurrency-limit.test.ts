import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ConcurrencyLimit } from '../../src/lib/concurrency-limit.js';

describe('ConcurrencyLimit', () => {
  it('runs at most its limit at once, the rest in arrival order, and frees turns after failures', async () => {
    const limit = new ConcurrencyLimit(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const tasks = Array.from({ length: 7 }, (_, i) =>
      limit.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await delay(5);
        running--;
        if (i === 3) throw new Error('task 3 fails');
        return i;
      }),
    );
    assert.equal(limit.running, 2);
    assert.equal(limit.waiting, 5);
    const settled = await Promise.allSettled(tasks);
    assert.equal(most, 2);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6]);
    assert.equal(settled.filter((result) => result.status === 'rejected').length, 1);
    assert.deepEqual([limit.running, limit.waiting], [0, 0]);
  });

  it('refuses a limit that is not a positive integer', () => {
    assert.throws(() => new ConcurrencyLimit(0), RangeError);
    assert.throws(() => new ConcurrencyLimit(1.5), RangeError);
  });
});
