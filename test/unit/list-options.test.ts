import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitCommaList } from '../../src/cli/list-options.js';

describe('the variable of a repeatable option', () => {
  it('is split on commas, with spaces around values and empty values dropped', () => {
    assert.deepEqual(splitCommaList('8080:80, 9000-9002:9000-9002 ,,'), ['8080:80', '9000-9002:9000-9002']);
  });

  it('keeps a comma or a quote inside double quotes, as a CSV line does', () => {
    assert.deepEqual(splitCommaList('"tags=[""a"",""b""]",region=eu'), ['tags=["a","b"]', 'region=eu']);
    assert.deepEqual(splitCommaList('"X-Team: a, b"'), ['X-Team: a, b']);
  });
});
