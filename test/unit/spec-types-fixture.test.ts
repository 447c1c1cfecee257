import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { committedSpecTypes, SPEC_TYPE_LOCATIONS, specPath, specTypesFromSpec } from '../helpers/spec-types.js';

/**
 * The committed type list (test/fixtures/spec-types.json) is what tests hold answers against, so
 * that a clone with nothing beside it runs them. Where the spec is there too, the list must be
 * what the spec says now; where it is not, that comparison is skipped, saying so.
 */
const path = specPath();
const noSpec = existsSync(path) ? false : `the API specification is not at ${path}, so the committed type list is not compared with it`;

describe('the committed type list of the API specification', () => {
  it('has every type the tests look up, each with fields', () => {
    const types = committedSpecTypes();
    assert.deepEqual(
      Object.keys(types),
      SPEC_TYPE_LOCATIONS.map((location) => location.type),
      'run npm run spec:types',
    );
    for (const [type, fields] of Object.entries(types)) assert.ok(fields.length > 0, `${type} has fields`);
  });

  it('is what the spec says now', { skip: noSpec }, () => {
    const fresh = specTypesFromSpec(path);
    const committed = committedSpecTypes();
    const changed = [...new Set([...Object.keys(fresh), ...Object.keys(committed)])].filter(
      (type) => JSON.stringify(fresh[type]) !== JSON.stringify(committed[type]),
    );
    assert.deepEqual(
      changed,
      [],
      `test/fixtures/spec-types.json is out of date for ${changed.join(', ')}: run npm run spec:types and commit it`,
    );
    assert.deepEqual(committed, fresh, 'run npm run spec:types');
  });
});
