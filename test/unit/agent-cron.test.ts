import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextCron, parseCron } from '../../src/agent/cron.js';

describe('agent script cron schedules', () => {
  it('finds the next second a six-field schedule names', () => {
    const every15s = parseCron('*/15 * * * * *');
    assert.deepEqual(nextCron(every15s, new Date(2026, 0, 5, 10, 0, 7)), new Date(2026, 0, 5, 10, 0, 15));
    assert.deepEqual(nextCron(every15s, new Date(2026, 0, 5, 10, 0, 45)), new Date(2026, 0, 5, 10, 1, 0));
    const weekdayMornings = parseCron('0 30 9 * * 1-5');
    // 2026-01-09 is a Friday: the next run is Monday the 12th.
    assert.deepEqual(nextCron(weekdayMornings, new Date(2026, 0, 9, 9, 30, 0)), new Date(2026, 0, 12, 9, 30, 0));
    assert.deepEqual(nextCron(parseCron('0 0 0 1 1'), new Date(2026, 5, 1)), new Date(2027, 0, 1, 0, 0, 0));
    assert.deepEqual(
      nextCron(parseCron('0 0 12 * * 0,7'), new Date(2026, 0, 5, 13, 0, 0)),
      new Date(2026, 0, 11, 12, 0, 0),
      'Sunday is 0 and 7',
    );
  });

  it('refuses malformed schedules and knows when nothing matches', () => {
    assert.throws(() => parseCron('* * * *'), /5 or 6 fields/);
    assert.throws(() => parseCron('61 * * * * *'), /outside 0-59/);
    assert.throws(() => parseCron('*/0 * * * * *'), /bad step/);
    assert.equal(nextCron(parseCron('0 0 0 30 2 *'), new Date(2026, 0, 1)), undefined, 'February has no 30th');
  });
});
