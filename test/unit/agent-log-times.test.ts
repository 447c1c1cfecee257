import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogTimes } from '../../src/domain/agent-logs.js';

/** How every log line's time was stored before LogTimes: parsed and formatted anew. */
function parsedAndFormatted(value: string): string | undefined {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

describe('log line times', () => {
  it('store what parsing and formatting each line stored, whatever the agent sends', () => {
    const seconds = [
      '2026-11-26T15:48:51',
      '2026-11-26T23:59:59',
      '2024-02-29T12:00:00',
      // Not real seconds: Date.parse moves them on to the next day or month, or refuses them.
      '2026-02-29T12:00:00',
      '2026-02-30T00:00:00',
      '2026-04-31T10:00:00',
      '2026-11-26T24:00:00',
      '2026-11-26T23:60:00',
      '2026-11-26T23:59:60',
      '2026-13-01T00:00:00',
      '2026-00-10T00:00:00',
      '0000-01-01T00:00:00',
      '9999-12-31T23:59:59',
    ];
    const fractions = ['', '.', '.1', '.12', '.123', '.1239', '.999999', '.123456789', '.000000000001'];
    const others = [
      '',
      'yesterday',
      '2026-11-26',
      '2026-11-26T15:48:51+02:00',
      '2026-11-26T15:48:51.123456-07:30',
      '2026-11-26 15:48:51Z',
      'Thu, 26 Nov 2026 15:48:51 GMT',
      '2026-11-26T15:48:51.123z',
      ' 2026-11-26T15:48:51.123Z',
      '2026-11-26T15:48:51.123Z ',
      '+012026-11-26T15:48:51.123Z',
    ];
    const values = [...seconds.flatMap((second) => fractions.map((fraction) => `${second}${fraction}Z`)), ...others];
    // One instance over all of them, in two orders, as it remembers the second it saw last.
    const times = new LogTimes();
    for (const value of [...values, ...values.reverse()]) assert.equal(times.normalize(value), parsedAndFormatted(value), value);
  });
});
