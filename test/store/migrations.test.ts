import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { SchemaTooNewError } from '../../src/lib/errors.js';
import { systemClock } from '../../src/lib/clock.js';
import { LATEST_SCHEMA_VERSION, migrate } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { Store } from '../../src/store/store.js';
import { createTestDatabase, TEST_DIALECTS } from '../helpers/databases.js';
import { templateRow } from '../helpers/template-row.js';

for (const dialect of TEST_DIALECTS) {
  describe(`migrations on ${dialect}`, () => {
    it('migrates a new database, then does nothing on a second run', async () => {
      const database = await createTestDatabase(dialect);
      const store = await Store.open(database.target, systemClock);
      try {
        const first = await store.migrate();
        assert.equal(first.from, 0);
        assert.equal(first.to, LATEST_SCHEMA_VERSION);
        assert.ok(first.applied.length >= 1);
        const second = await store.migrate();
        assert.deepEqual(second.applied, []);
        assert.equal(second.from, LATEST_SCHEMA_VERSION);
      } finally {
        await store.close();
        await database.drop();
      }
    });

    it('refuses to start against a database migrated by a newer binary', async () => {
      const database = await createTestDatabase(dialect);
      const store = await Store.open(database.target, systemClock);
      try {
        await store.migrate();
        await store.db
          .insertInto('cove_migrations')
          .values({ version: LATEST_SCHEMA_VERSION + 1, name: 'from-the-future', applied_at: new Date().toISOString() })
          .execute();
        await assert.rejects(store.migrate(), (error: unknown) => {
          assert.ok(error instanceof SchemaTooNewError);
          assert.match(error.message, /newer than this binary/);
          return true;
        });
      } finally {
        await store.close();
        await database.drop();
      }
    });

    it("makes public the default max_port_share_level of new templates, and keeps existing templates' levels", async () => {
      const database = await createTestDatabase(dialect);
      const store = await Store.open(database.target, systemClock);
      try {
        const before = MIGRATIONS.findIndex((migration) => migration.name === 'public-port-share-default');
        assert.ok(before > 0);
        await migrate(store.db, store.dialect, MIGRATIONS.slice(0, before));
        const now = new Date().toISOString();
        const userId = 'f1d7bd4e-8e0a-4a43-9b36-1c0f1d3a2b11';
        const organizationId = 'a0000000-0000-4000-8000-000000000000';
        await store.db
          .insertInto('users')
          .values({
            id: userId,
            email: 'x@example.com',
            username: 'x',
            name: '',
            avatar_url: '',
            hashed_password: '',
            login_type: 'password',
            status: 'active',
            rbac_roles: '[]',
            theme_preference: '',
            hashed_one_time_passcode: null,
            one_time_passcode_expires_at: null,
            deleted: 0,
            created_at: now,
            updated_at: now,
            last_seen_at: now,
          })
          .execute();
        await store.db
          .insertInto('organizations')
          .values({
            id: organizationId,
            name: 'o',
            display_name: '',
            description: '',
            icon: '',
            is_default: 1,
            created_at: now,
            updated_at: now,
            // This schema predates the column (migration 22); the row is written as it was then.
          } as Parameters<ReturnType<typeof store.db.insertInto<'organizations'>>['values']>[0])
          .execute();
        const template = (name: string, id: string) =>
          templateRow({ id, organization_id: organizationId, name, active_version_id: id, created_by: userId, created_at: now });
        const capped = template('capped', 'b0000000-0000-4000-8000-000000000001');
        const wider = template('wider', 'b0000000-0000-4000-8000-000000000002');
        await store.db
          .insertInto('templates')
          .values([
            { ...capped, max_port_share_level: 'owner' },
            { ...wider, max_port_share_level: 'authenticated' },
          ])
          .execute();

        await store.migrate();
        const { max_port_share_level: _unsaid, ...unsaid } = template('unsaid', 'b0000000-0000-4000-8000-000000000003');
        // The schema's type requires every column; this insert leaves one to its default on purpose.
        const withDefaults = store.db as unknown as Kysely<{ templates: typeof unsaid }>;
        await withDefaults.insertInto('templates').values(unsaid).execute();
        const levels = await store.db.selectFrom('templates').select(['name', 'max_port_share_level']).orderBy('name').execute();
        assert.deepEqual(
          levels.map((row) => [row.name, row.max_port_share_level]),
          [
            ['capped', 'owner'],
            ['unsaid', 'public'],
            ['wider', 'authenticated'],
          ],
        );
      } finally {
        await store.close();
        await database.drop();
      }
    });

    it('enforces foreign keys and case-insensitive unique usernames', async () => {
      const database = await createTestDatabase(dialect);
      const store = await Store.open(database.target, systemClock);
      try {
        await store.migrate();
        const now = new Date().toISOString();
        const user = {
          id: 'f1d7bd4e-8e0a-4a43-9b36-1c0f1d3a2b11',
          email: 'x@example.com',
          username: 'Alice',
          name: '',
          avatar_url: '',
          hashed_password: '',
          login_type: 'password',
          status: 'active',
          rbac_roles: '[]',
          theme_preference: '',
          hashed_one_time_passcode: null,
          one_time_passcode_expires_at: null,
          deleted: 0,
          created_at: now,
          updated_at: now,
          last_seen_at: now,
        };
        await store.db.insertInto('users').values(user).execute();
        await assert.rejects(
          store.db
            .insertInto('users')
            .values({ ...user, id: '0b6f5d7c-3a43-4b1e-8d7e-5f0a7c9e2d22', email: 'y@example.com', username: 'alice' })
            .execute(),
        );
        await assert.rejects(
          store.db
            .insertInto('organization_members')
            .values({
              user_id: user.id,
              organization_id: 'a0000000-0000-4000-8000-000000000000',
              roles: '[]',
              created_at: now,
              updated_at: now,
            })
            .execute(),
        );
        if (dialect === 'sqlite') {
          const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
          assert.equal(mode.rows[0]?.journal_mode, 'wal');
        }
      } finally {
        await store.close();
        await database.drop();
      }
    });
  });
}
