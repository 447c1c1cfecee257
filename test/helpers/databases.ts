import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
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

/** The id `scripts/test.mjs` gives its run, if it started this one. */
const RUN_ID = process.env['COVE_TEST_RUN_ID'];

/**
 * How the databases of this run are named: `scripts/test.mjs` gives each run its own id and drops,
 * and reports, the ones a test left behind.
 */
const TEST_DATABASE_PREFIX = `cove_test_${RUN_ID ?? 'x'}_`;

/**
 * The migrated databases of this run that new ones are copied from: a PostgreSQL database, and a
 * SQLite file in this directory. `scripts/test.mjs` drops and removes them after the run (and does
 * not count the database as one a test left behind). Only within a run: the tree, and so the
 * schema, cannot change under it.
 */
export const TEMPLATE_DATABASE = `${TEST_DATABASE_PREFIX}template`;
const TEMPLATE_DIRECTORY = join(tmpdir(), `cove-test-template-${RUN_ID ?? 'x'}`);

/** Any constant works: it only has to be the same in every test process of the run. */
const TEMPLATE_LOCK = 0x636f7674;

const templates = new Map<'sqlite' | 'postgres', Promise<string>>();

/** The template of `kind` for this run: made by the first test process that asks, under a lock. */
function migratedTemplate(kind: 'sqlite' | 'postgres'): Promise<string> {
  let template = templates.get(kind);
  if (!template) {
    template = kind === 'sqlite' ? sqliteTemplate() : postgresTemplate();
    // A failure is not kept: the next database asks again.
    template.catch(() => templates.delete(kind));
    templates.set(kind, template);
  }
  return template;
}

async function sqliteTemplate(): Promise<string> {
  const file = join(TEMPLATE_DIRECTORY, 'cove.db');
  if (existsSync(file)) return file;
  mkdirSync(TEMPLATE_DIRECTORY, { recursive: true });
  // Made under a name of its own and renamed into place: processes that race both finish, and no
  // process copies a file still being written.
  const making = mkdtempSync(join(TEMPLATE_DIRECTORY, 'making-'));
  await migrateEmpty({ kind: 'sqlite', file: join(making, 'cove.db') });
  renameSync(join(making, 'cove.db'), file);
  rmSync(making, { recursive: true, force: true });
  return file;
}

async function postgresTemplate(): Promise<string> {
  if (!PG_URL) throw new Error('COVE_TEST_PG_URL is not set');
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE_DATABASE]);
    if (rowCount === 0) {
      const making = `${TEST_DATABASE_PREFIX}making_template`;
      await client.query(`DROP DATABASE IF EXISTS ${making} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${making}`);
      const url = new URL(PG_URL);
      url.pathname = `/${making}`;
      await migrateEmpty({ kind: 'postgres', url: url.toString() });
      // Renamed once migrated and closed, so that no process copies a database still being written.
      await client.query(`ALTER DATABASE ${making} RENAME TO ${TEMPLATE_DATABASE}`);
    }
    return TEMPLATE_DATABASE;
  } finally {
    await client.end();
  }
}

/** Brings an empty database to the latest schema, as a daemon's first start does, and closes it. */
async function migrateEmpty(target: DatabaseTarget): Promise<void> {
  const [{ Store }, { systemClock }] = await Promise.all([import('../../src/store/store.js'), import('../../src/lib/clock.js')]);
  const store = await Store.open(target, systemClock);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
}

/** PostgreSQL's SQLSTATE for a permission denied. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** A database for one test, and how to throw it away. */
export interface TestDatabase {
  readonly target: DatabaseTarget;
  readonly dataDir: string;
  drop(): Promise<void>;
}

/**
 * A fresh database: a new SQLite file in a temporary directory, or a new PostgreSQL database. Empty,
 * or with `migrated`, already at the latest schema, as the daemon's first start leaves it before it
 * writes anything: copied from a database this run migrated once (see migratedTemplate), where a
 * run of scripts/test.mjs names it, since migrating took a second of each daemon's start on PostgreSQL.
 */
export async function createTestDatabase(
  kind: 'sqlite' | 'postgres',
  options: { readonly migrated?: boolean } = {},
): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-test-'));
  const template = options.migrated === true && RUN_ID !== undefined ? await migratedTemplate(kind) : undefined;
  if (kind === 'sqlite') {
    const file = join(dataDir, 'cove.db');
    if (template) {
      copyFileSync(template, file);
      // As the daemon keeps it: a wider mode would be tightened, and a warning logged, at its start.
      chmodSync(file, 0o600);
    }
    return {
      target: { kind: 'sqlite', file },
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  if (!PG_URL) throw new Error('COVE_TEST_PG_URL is not set');
  const name = `${TEST_DATABASE_PREFIX}${randomBytes(6).toString('hex')}`;
  await adminQuery(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgres', url: url.toString() },
    dataDir,
    drop: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      const dropping = dropDatabase(name);
      if (RUN_ID === undefined) return dropping;
      // In a run of scripts/test.mjs the test goes on while PostgreSQL drops it (half a second a
      // daemon): the pending query keeps this test process alive until it is done, and one that
      // fails fails the process, and is dropped and named by scripts/test.mjs as left behind.
      dropping.catch((error: unknown) => {
        console.error(`could not drop the test database ${name}:`, error);
        process.exitCode = 1;
      });
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

async function dropDatabase(name: string): Promise<void> {
  try {
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } catch (error) {
    // FORCE may not end an autovacuum worker busy in the database (it runs as no role we are a
    // member of); without FORCE, PostgreSQL asks such workers to stop and waits for them.
    if ((error as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) throw error;
    await adminQuery(`DROP DATABASE IF EXISTS ${name}`);
  }
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
