import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/store/database.js';

/**
 * `COVE_TEST_DATABASE=sqlite`: a run on PostgreSQL follows this one (CI runs both), so this run
 * leaves PostgreSQL to it: the PostgreSQL halves of tests on both databases, and the tests of
 * PostgreSQL alone, run once, there.
 */
export const POSTGRES_HAS_ITS_OWN_RUN = process.env['COVE_TEST_DATABASE'] === 'sqlite';

/** The PostgreSQL server tests may use, if any. */
export const PG_URL = POSTGRES_HAS_ITS_OWN_RUN ? undefined : process.env['COVE_TEST_PG_URL'];

/**
 * Why a test of PostgreSQL alone skips, or false when it runs. Under COVE_REQUIRE_PG=1 it runs, and
 * fails without a server, except in a run that leaves PostgreSQL to its own.
 */
export const NEEDS_POSTGRES: string | false = PG_URL
  ? false
  : POSTGRES_HAS_ITS_OWN_RUN
    ? 'PostgreSQL has its own run (COVE_TEST_DATABASE=sqlite)'
    : process.env['COVE_REQUIRE_PG'] === '1'
      ? false
      : 'needs PostgreSQL (COVE_TEST_PG_URL)';

/**
 * The database this run's daemons use, in-process or `bin/cove serve`: SQLite, or PostgreSQL when
 * `COVE_TEST_DATABASE=postgres` runs the whole suite there.
 */
export const RUN_DATABASE: 'sqlite' | 'postgres' = process.env['COVE_TEST_DATABASE'] === 'postgres' ? 'postgres' : 'sqlite';

/**
 * Why a test whose subject is not the database (a browser, a terminal, a keychain, the packaging,
 * HTTP timeouts) skips in a run on PostgreSQL: the same code has run in the SQLite run, and the
 * database under the daemon changes nothing it checks. CI runs both, and time is what it costs.
 */
export const THE_SQLITE_RUN_COVERS_IT: string | false =
  RUN_DATABASE === 'postgres' ? 'not about the database, and the SQLite run has run it (COVE_TEST_DATABASE=postgres)' : false;

/**
 * Which databases a store test runs on: SQLite always, PostgreSQL whenever it is configured; only
 * PostgreSQL in a run on PostgreSQL (its SQLite half belongs to the SQLite run), and only SQLite in
 * a run that leaves PostgreSQL to its own.
 */
export const TEST_DIALECTS: readonly ('sqlite' | 'postgres')[] =
  RUN_DATABASE === 'postgres' ? ['postgres'] : PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/**
 * How the databases of this run are named: `scripts/test.mjs` gives each run its own id and drops,
 * and reports, the ones a test left behind.
 */
const TEST_DATABASE_PREFIX = `cove_test_${process.env['COVE_TEST_RUN_ID'] ?? 'x'}_`;

/** PostgreSQL's SQLSTATE for a permission denied. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** A database for one test, and how to throw it away. */
export interface TestDatabase {
  readonly target: DatabaseTarget;
  readonly dataDir: string;
  drop(): Promise<void>;
}

/** A fresh, empty database: a new SQLite file in a temporary directory, or a new PostgreSQL database. */
export async function createTestDatabase(kind: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-test-'));
  if (kind === 'sqlite') {
    return {
      target: { kind: 'sqlite', file: join(dataDir, 'cove.db') },
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  if (!PG_URL) throw new Error('COVE_TEST_PG_URL is not set');
  const name = `${TEST_DATABASE_PREFIX}${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgres', url: url.toString() },
    dataDir,
    drop: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      try {
        await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } catch (error) {
        // FORCE may not end an autovacuum worker busy in the database (it runs as no role we are a
        // member of); without FORCE, PostgreSQL asks such workers to stop and waits for them.
        if ((error as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) throw error;
        await adminQuery(`DROP DATABASE IF EXISTS ${name}`);
      }
    },
  };
}

/**
 * The `cove serve` arguments that put a daemon started as a child process on `database`: none for
 * SQLite, whose file lives in the data directory the test passes anyway.
 */
export function serveDatabaseArgs(database: TestDatabase): string[] {
  return database.target.kind === 'postgres' ? ['--postgres-url', database.target.url] : [];
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
