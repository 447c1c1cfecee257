import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inList } from '../../src/store/in-list.js';

describe('inList', () => {
  it('pads a list to the next power of two with its last value, so few lengths ever reach SQL', () => {
    assert.deepEqual(inList([]), []);
    assert.deepEqual(inList(['a']), ['a']);
    assert.deepEqual(inList(['a', 'b', 'c']), ['a', 'b', 'c', 'c']);
    assert.deepEqual(inList(['a', 'b', 'c', 'd', 'e']), ['a', 'b', 'c', 'd', 'e', 'e', 'e', 'e']);
    const lengths = new Set(Array.from({ length: 100 }, (_, n) => inList(Array.from({ length: n + 1 }, (_, i) => i)).length));
    assert.deepEqual(
      [...lengths].sort((x, y) => x - y),
      [1, 2, 4, 8, 16, 32, 64, 128],
    );
  });

  it('leaves a long list as it is', () => {
    const long = Array.from({ length: 1500 }, (_, i) => i);
    assert.deepEqual(inList(long), long);
  });
});
