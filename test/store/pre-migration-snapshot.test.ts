import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, it } from 'node:test';
import Sqlite from 'better-sqlite3';
import { silentLogger } from '../../src/daemon/index.js';
import { snapshotBeforeMigrating } from '../../src/daemon/pre-migration-snapshot.js';
import { systemClock } from '../../src/lib/clock.js';
import { VERSION } from '../../src/lib/version.js';
import { LATEST_SCHEMA_VERSION, migrate } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { Store } from '../../src/store/store.js';
import { createTestDatabase, RUN_DATABASE } from '../helpers/databases.js';

const AT = new Date('2026-11-30T02:15:00.000Z');

describe('the snapshot before a SQLite migration', { skip: RUN_DATABASE === 'postgres' ? 'SQLite files alone' : false }, () => {
  it('names the schema and the release that served the database, and is the database before migrating', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      const store = await Store.open(database.target, systemClock);
      await migrate(store.db, store.dialect, MIGRATIONS.slice(0, -1));
      await store.close();
      const snapshot = await snapshotBeforeMigrating(database.target, silentLogger(), LATEST_SCHEMA_VERSION, AT);
      assert.equal(basename(snapshot ?? ''), `cove.db.pre-${LATEST_SCHEMA_VERSION - 1}-v${VERSION}-20261130T021500Z.bak`);
      const copy = new Sqlite(snapshot ?? '', { readonly: true });
      const version = (copy.prepare('select max(version) as version from cove_migrations').get() as { version: number }).version;
      copy.close();
      assert.equal(version, LATEST_SCHEMA_VERSION - 1);
      assert.ok(readdirSync(database.dataDir).every((name) => !name.includes('.partial-')));

      // Up to date, nothing to copy; and a new database (nothing applied) neither.
      const again = await Store.open(database.target, systemClock);
      await again.migrate();
      await again.close();
      assert.equal(await snapshotBeforeMigrating(database.target, silentLogger()), undefined);
      const empty = await createTestDatabase('sqlite');
      try {
        const fresh = await Store.open(empty.target, systemClock);
        await fresh.close();
        assert.equal(await snapshotBeforeMigrating(empty.target, silentLogger()), undefined);
        assert.deepEqual(
          readdirSync(empty.dataDir).filter((name) => name.endsWith('.bak')),
          [],
        );
      } finally {
        await empty.drop();
      }
      assert.equal(readdirSync(database.dataDir).filter((name) => name.endsWith('.bak')).length, 1, 'no second snapshot');
    } finally {
      await database.drop();
    }
  });
});
