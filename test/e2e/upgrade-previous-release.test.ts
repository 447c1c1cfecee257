import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Sqlite from 'better-sqlite3';
import { startDaemon } from '../../src/daemon/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { CoveClient } from '../../src/sdk/client.js';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrate.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { capturingLogger } from '../helpers/test-daemon.js';

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/previous-release');
/** The schema the previous release left (see the fixtures' README). */
const PREVIOUS_SCHEMA = 24;
const PASSWORD = 'Fixture-passw0rd-2026';

/** PostgreSQL's own client, installed with the server (not always on PATH). */
function psql(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((version) => join(root, version, 'bin', 'psql')).find((path) => existsSync(path));
  return found ?? 'psql';
}

function schemaOf(file: string): number {
  const db = new Sqlite(file, { readonly: true });
  try {
    return (db.prepare('select max(version) as version from cove_migrations').get() as { version: number }).version;
  } finally {
    db.close();
  }
}

/** Puts the previous release's deployment in `database`, as an operator upgrading would have it. */
function loadFixture(database: TestDatabase): void {
  if (database.target.kind === 'sqlite') {
    copyFileSync(join(FIXTURES, 'cove.db'), database.target.file);
    chmodSync(database.target.file, 0o600);
    return;
  }
  execFileSync(psql(), ['-q', '-v', 'ON_ERROR_STOP=1', '-f', join(FIXTURES, 'cove.sql'), database.target.url], { stdio: 'pipe' });
}

for (const dialect of TEST_DIALECTS) {
  describe(`upgrading the previous release's ${dialect} database`, () => {
    it('snapshots (SQLite), migrates and serves it: the owner signs in and finds the workspace, its build, the template and the token', async () => {
      const database = await createTestDatabase(dialect);
      loadFixture(database);
      const logged = capturingLogger();
      const options = resolveOptions({
        flags: {
          httpAddress: '127.0.0.1:0',
          dataDir: database.dataDir,
          provisionerDaemons: '0',
          ...(database.target.kind === 'postgres' ? { postgresUrl: database.target.url } : {}),
        },
        env: {},
      });
      const daemon = await startDaemon(options, { logger: logged.logger });
      try {
        if (database.target.kind === 'sqlite') {
          const snapshots = readdirSync(database.dataDir).filter((name) => name.startsWith('cove.db.pre-'));
          assert.equal(snapshots.length, 1, `one snapshot, in ${readdirSync(database.dataDir).join(', ')}`);
          const [snapshot = ''] = snapshots;
          assert.match(snapshot, new RegExp(`^cove\\.db\\.pre-${PREVIOUS_SCHEMA}-\\d{8}T\\d{6}Z\\.bak$`));
          assert.equal(schemaOf(join(database.dataDir, snapshot)), PREVIOUS_SCHEMA, 'the snapshot is the database before migrating');
          const told = logged.lines().find((line) => line.includes('copied the database before migrating it'));
          assert.ok(told, 'the daemon says it made the copy');
          assert.match(told, /cove server restore [^ ]*cove\.db\.pre-24-/);
          assert.equal(schemaOf(database.target.file), LATEST_SCHEMA_VERSION);
        } else {
          const row = await daemon.store.db
            .selectFrom('cove_migrations')
            .select((eb) => eb.fn.max('version').as('version'))
            .executeTakeFirstOrThrow();
          assert.equal(Number(row.version), LATEST_SCHEMA_VERSION);
        }

        const anonymous = new CoveClient({ url: daemon.url });
        const { session_token } = await anonymous.login('owner@example.com', PASSWORD);
        const owner = anonymous.withToken(session_token);
        assert.equal((await owner.user()).username, 'owner');
        const templates = await owner.templates();
        assert.deepEqual(
          templates.map((template) => template.name),
          ['echo'],
        );
        const { workspaces } = await owner.workspaces();
        assert.deepEqual(
          workspaces.map((workspace) => [workspace.name, workspace.template_name, workspace.latest_build.status]),
          [['dev', 'echo', 'running']],
        );
        const builds = await owner.workspaceBuilds(workspaces[0]?.id ?? '');
        assert.deepEqual(
          builds.map((build) => [build.build_number, build.transition, build.job.status]),
          [[1, 'start', 'succeeded']],
        );
        const tokens = await owner.listTokens();
        assert.ok(
          tokens.some((token) => token.token_name === 'fixture-token'),
          'the token made before the upgrade',
        );
      } finally {
        await daemon.close();
        await database.drop();
      }
    });
  });
}
