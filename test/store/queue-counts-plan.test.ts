import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { openDatabase } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { queueCountsQuery } from '../../src/store/queries/provisioner-jobs.js';
import type { Database } from '../../src/store/schema.js';

describe('the queue counts of a page of jobs (SQLite only: its planner keeps the join order written)', () => {
  let directory: string;
  let db: Kysely<Database>;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'cove-queue-plan-'));
    ({ db } = await openDatabase({ kind: 'sqlite', file: join(directory, 'cove.db') }));
    await migrate(db, 'sqlite');
  });
  after(async () => {
    await db?.destroy();
    rmSync(directory, { recursive: true, force: true });
  });

  it("finds the jobs asked about by id, then counts each one's queue from the queue index", async () => {
    const query = queueCountsQuery(db, ['a', 'b', 'c']);
    assert.ok(query);
    const compiled = query.compile();
    const { rows } = await db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` });
    const loops = rows.map((row) => row.detail).filter((detail) => /^(SEARCH|SCAN)/.test(detail));
    // Going through every queued job and, for each, every job of its organization took 7 s at 10,000 workspaces.
    assert.match(loops[0] ?? '', /^SEARCH job USING .*\(id=/, loops.join('; '));
    assert.match(loops[1] ?? '', /^SEARCH queued USING INDEX provisioner_jobs_queued /, loops.join('; '));
    assert.equal(loops.length, 2, loops.join('; '));
  });
});
