import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PG_URL, POSTGRES_HAS_ITS_OWN_RUN } from '../helpers/databases.js';

// CI sets COVE_REQUIRE_PG so that a missing PostgreSQL fails the run instead of skipping its suite.
it(
  'runs the PostgreSQL suite when it is required',
  {
    skip:
      process.env['COVE_REQUIRE_PG'] !== '1'
        ? 'COVE_REQUIRE_PG is not set'
        : POSTGRES_HAS_ITS_OWN_RUN && 'PostgreSQL has its own run (COVE_TEST_DATABASE=sqlite)',
  },
  async () => {
    assert.ok(PG_URL, 'COVE_REQUIRE_PG=1 but COVE_TEST_PG_URL is not set');
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const result = await client.query<{ ok: number }>('select 1 as ok');
      assert.equal(result.rows[0]?.ok, 1);
    } finally {
      await client.end();
    }
  },
);
