import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OperationStats } from '../../src/cli/scaletest/operation-stats.js';

describe("scaletest's operation figures", () => {
  it('combine operations of any length: a long run records hundreds of thousands of echoes', () => {
    const stats = new OperationStats();
    const echoes = 400_000;
    for (let i = 1; i <= echoes; i++) stats.record('terminal echo', i % 100);
    stats.record('GET /api/v2/workspaces', 250);
    stats.fail('GET /api/v2/workspaces', 'status 503');
    const echo = stats.combined('echo', (operation) => operation === 'terminal echo');
    assert.equal(echo.count, echoes);
    assert.equal(echo.p50_ms, 49);
    assert.equal(echo.p95_ms, 94);
    assert.equal(echo.max_ms, 99);
    assert.equal(echo.errors, 0);
    const all = stats.combined('all', () => true);
    assert.equal(all.count, echoes + 1);
    assert.equal(all.errors, 1);
    assert.deepEqual(all.first_errors, ['status 503']);
  });
});
