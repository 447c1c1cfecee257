import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withTrafficWindow } from '../../src/domain/deployment-stats.js';

describe('the traffic window of agent reports', () => {
  it('adds the bytes of every report in the window, and starts again once the window is over', () => {
    const t0 = new Date('2026-11-24T10:00:00Z');
    const first = withTrafficWindow(null, { rx_bytes: 100, tx_bytes: 10 }, t0);
    assert.deepEqual([first.window_rx_bytes, first.window_tx_bytes, first.window_started_at], [100, 10, t0.toISOString()]);
    // A quiet report after traffic: the traffic stays counted.
    const quiet = withTrafficWindow(JSON.stringify(first), { rx_bytes: 0, tx_bytes: 0 }, new Date(t0.getTime() + 30_000));
    assert.deepEqual([quiet.rx_bytes, quiet.window_rx_bytes, quiet.window_tx_bytes], [0, 100, 10]);
    const more = withTrafficWindow(JSON.stringify(quiet), { rx_bytes: 5, tx_bytes: 1 }, new Date(t0.getTime() + 60_000));
    assert.deepEqual([more.window_rx_bytes, more.window_tx_bytes, more.window_started_at], [105, 11, t0.toISOString()]);
    const later = new Date(t0.getTime() + 15 * 60_000);
    const next = withTrafficWindow(JSON.stringify(more), { rx_bytes: 7, tx_bytes: 0 }, later);
    assert.deepEqual([next.window_rx_bytes, next.window_tx_bytes, next.window_started_at], [7, 0, later.toISOString()]);
  });

  it('reads a report stored before windows existed, or none, as a new window', () => {
    const now = new Date('2026-11-24T10:00:00Z');
    assert.equal(withTrafficWindow('{"rx_bytes":9}', { rx_bytes: 1 }, now).window_rx_bytes, 1);
    assert.equal(withTrafficWindow('not json', { tx_bytes: 2 }, now).window_tx_bytes, 2);
  });
});
