import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { systemClock } from '../../src/lib/clock.js';
import { VERSION } from '../../src/lib/version.js';
import { migrate } from '../../src/store/migrate.js';
import { MIGRATIONS, type Migration } from '../../src/store/migrations/index.js';
import { Store } from '../../src/store/store.js';
import { createTestDatabase, TEST_DIALECTS } from '../helpers/databases.js';

const LAST = MIGRATIONS.length;

/** A migration that does real work, then fails: as one meeting data it did not expect would. */
function failingAfterWork(version: number): Migration {
  return {
    version,
    name: 'fails-halfway',
    async up(db: Kysely<unknown>) {
      await db.schema.createTable('half_made').addColumn('id', 'integer').execute();
      await sql`insert into half_made (id) values (1)`.execute(db);
      await sql`update users set name = 'changed by a failed migration'`.execute(db);
      throw new Error('the migration meets a row it cannot convert');
    },
  };
}

async function tableNames(store: Store): Promise<string[]> {
  const rows =
    store.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type in ('table', 'index') order by name`.execute(store.db)
      : await sql<{
          name: string;
        }>`select tablename as name from pg_tables where schemaname = current_schema() union all select indexname from pg_indexes where schemaname = current_schema() order by 1`.execute(
          store.db,
        );
  return rows.rows.map((row) => row.name);
}

for (const dialect of TEST_DIALECTS) {
  describe(`a failing migration on ${dialect}`, () => {
    it('leaves the database as it was before the first pending migration, and a later run migrates it', async () => {
      const database = await createTestDatabase(dialect);
      const store = await Store.open(database.target, systemClock);
      try {
        // An older release's database: all but the last three migrations applied, and a user in it.
        await migrate(store.db, store.dialect, MIGRATIONS.slice(0, LAST - 3));
        await sql`insert into users (id, email, username, name, avatar_url, hashed_password, login_type, status, rbac_roles,
          theme_preference, deleted, created_at, updated_at, last_seen_at)
          values ('f1d7bd4e-8e0a-4a43-9b36-1c0f1d3a2b11', 'x@example.com', 'x', 'Xavier', '', '', 'password', 'active', '[]',
          '', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`.execute(store.db);
        const tablesBefore = await tableNames(store);

        // The three real migrations succeed inside the run; the fourth fails after doing work of its own.
        await assert.rejects(migrate(store.db, store.dialect, [...MIGRATIONS, failingAfterWork(LAST + 1)]), /cannot convert/);

        const versions = await store.db.selectFrom('cove_migrations').select('version').orderBy('version').execute();
        assert.deepEqual(
          versions.map((row) => row.version),
          MIGRATIONS.slice(0, LAST - 3).map((migration) => migration.version),
        );
        assert.deepEqual(await tableNames(store), tablesBefore, 'no table or index of the pending migrations is left');
        const user = await store.db.selectFrom('users').select('name').executeTakeFirstOrThrow();
        assert.equal(user.name, 'Xavier');

        // Fixed (the failing one gone), the same run goes through, and this release is recorded.
        const result = await migrate(store.db, store.dialect);
        assert.equal(result.from, MIGRATIONS[LAST - 4]?.version);
        assert.equal(result.applied.length, 3);
        const releases = await sql<{ version: string }>`select version from cove_releases`.execute(store.db);
        assert.deepEqual(
          releases.rows.map((row) => row.version),
          [VERSION],
        );
      } finally {
        await store.close();
        await database.drop();
      }
    });
  });
}
