import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { missingUnit, parseDuration } from '../../src/lib/duration.js';

describe('durations and their units', () => {
  it('reads a bare number as milliseconds by default, as the server options always have', () => {
    assert.equal(parseDuration('30'), 30);
    assert.equal(parseDuration('0'), 0);
    assert.equal(parseDuration('1h30m'), 5_400_000);
  });

  it('refuses a bare number other than 0 where a unit is required, as the reference CLI does', () => {
    assert.equal(parseDuration('30', 'refused'), undefined);
    assert.equal(parseDuration('0', 'refused'), 0);
    assert.equal(parseDuration('30s', 'refused'), 30_000);
    assert.equal(parseDuration('7d', 'refused'), 7 * 86_400_000);
    assert.equal(parseDuration('500ms', 'refused'), 500);
  });

  it('says what to write instead of a number without a unit', () => {
    assert.equal(missingUnit('30'), '30 has no unit; write 30s, 30m, 30h or 30d');
    assert.equal(missingUnit(' 1.5 '), '1.5 has no unit; write 1.5s, 1.5m, 1.5h or 1.5d');
    for (const fine of ['0', '30s', '1h30m', 'soon', '']) assert.equal(missingUnit(fine), undefined, fine);
  });
});
