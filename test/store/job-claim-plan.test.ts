import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { normalizeTags } from '../../src/domain/provisioner-tags.js';
import { openDatabase } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { claimStatement } from '../../src/store/queries/provisioner-jobs.js';
import type { Database } from '../../src/store/schema.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../helpers/databases.js';

/** A long queue, as when workspaces are created faster than the provisioners build them. */
const QUEUED = 2_000;
const NOW = '2026-01-01T00:00:00.000Z';

describe(
  'claiming from a long queue (PostgreSQL only: its planner estimates the tag rule)',
  { skip: TEST_DIALECTS.includes('postgres') ? false : 'COVE_TEST_PG_URL is not set' },
  () => {
    let database: TestDatabase;
    let db: Kysely<Database>;
    before(async () => {
      database = await createTestDatabase('postgres');
      ({ db } = await openDatabase(database.target));
      await migrate(db, 'postgres');
      await sql`insert into users (id, email, username, login_type, status, created_at, updated_at, last_seen_at)
      values ('plan-user', 'plan@example.com', 'plan', 'password', 'active', ${NOW}, ${NOW}, ${NOW})`.execute(db);
      await sql`insert into organizations (id, name, display_name, created_at, updated_at)
      values ('plan-org', 'plan', 'Plan', ${NOW}, ${NOW})`.execute(db);
      await sql`insert into files (id, hash, created_by, created_at, mimetype, size, data)
      values ('plan-file', 'h', 'plan-user', ${NOW}, 'application/x-tar', 0, ${Buffer.alloc(0)})`.execute(db);
      await sql`insert into provisioner_jobs (id, organization_id, type, provisioner, file_id, initiator_id, tags, created_at, updated_at)
      select 'job-' || lpad(n::text, 5, '0'), 'plan-org', 'workspace_build', 'echo', 'plan-file', 'plan-user',
        ${JSON.stringify(normalizeTags('organization', {}))}, ${NOW}, ${NOW}
      from generate_series(1, ${QUEUED}) as n`.execute(db);
      await sql`analyze`.execute(db);
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    it('walks the queue index in order and stops at the first job it may take', async () => {
      const claim = claimStatement(
        db,
        'postgres',
        'plan-org',
        { workerId: 'w', provisioners: ['echo'], tags: normalizeTags('organization', {}) },
        NOW,
      );
      assert.ok(claim);
      const compiled = claim.compile();
      const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>({
        ...compiled,
        sql: `explain (analyze, costs off, timing off, summary off) ${compiled.sql}`,
      });
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      // Reading and sorting every queued job made each claim cost more the longer the queue grew.
      assert.doesNotMatch(plan, /Seq Scan|Sort/, plan);
      assert.match(plan, /Index Scan using provisioner_jobs_queued on provisioner_jobs( \w+)? \(actual rows=1 loops=1\)/, plan);
    });
  },
);
