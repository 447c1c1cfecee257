// Runs every test file under test/ with node's test runner, on the sources compiled once to
// JavaScript (scripts/test-tree.mjs). Node 20 neither expands globs nor discovers .ts files, so the
// list is made here. Extra arguments filter by path; a run of the whole suite first type-checks,
// lints and checks formatting, so none of them can be skipped, except by `--tests-only`: for a
// second run of the same tree (CI's run on PostgreSQL, with COVE_TEST_DATABASE=postgres), whose
// checks the first run has made.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledPath, writeTestTree } from './test-tree.mjs';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'helpers' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Runs a node_modules/.bin tool; exits with its status when it fails. */
function check(title, tool, args) {
  console.log(`# ${title}: ${tool} ${args.join(' ')}`);
  const result = spawnSync(join('node_modules', '.bin', tool), args, { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`# ${title} failed`);
    process.exit(result.status ?? 1);
  }
}

const args = process.argv.slice(2);
const testsOnly = args.includes('--tests-only');
const filters = args.filter((arg) => arg !== '--tests-only');
if (filters.length === 0 && !testsOnly) {
  check('type check', 'tsc', ['--noEmit']);
  check('type check of the dashboard', 'tsc', ['--noEmit', '-p', 'src/web']);
  check('lint', 'eslint', ['--max-warnings', '0', '.']);
  check('format', 'prettier', ['--check', '--log-level', 'warn', '.']);
}
// The files that took longest in CI (seconds, the slower of its two runs), started first: two at a
// time, a long file started last would run on alone while the other slot has nothing left to do.
// The others follow by name. A file missing here only starts later; keep the longest ones listed.
const SLOW_FILES = [
  ['test/e2e/container-image.test.ts', 59],
  ['test/e2e/docker.test.ts', 56],
  ['test/e2e/connection-log.test.ts', 45],
  ['test/api/retention.test.ts', 40],
  ['test/e2e/notification-delivery.test.ts', 35],
  ['test/e2e/dashboard-browser.test.ts', 39],
  ['test/api/access-matrix.test.ts', 32],
  ['test/api/junk-input-sweep.test.ts', 32],
  ['test/e2e/ssh-and-relay.test.ts', 30],
  ['test/e2e/git-external-auth.test.ts', 26],
  ['test/store/audited-writes.test.ts', 25],
  ['test/e2e/audit-notifications-browser.test.ts', 22],
  ['test/e2e/dashboard-axe-browser.test.ts', 27],
  ['test/e2e/postgres-backup-restore.test.ts', 20],
  ['test/e2e/reverse-proxy.test.ts', 17],
  ['test/e2e/tls.test.ts', 11],
  ['test/api/notification-events.test.ts', 22],
  ['test/e2e/dashboard-external-auth-browser.test.ts', 20],
  ['test/api/external-auth-replicas.test.ts', 15],
  ['test/cli/external-auth-links.test.ts', 12],
  ['test/e2e/database-outage.test.ts', 22],
  ['test/cli/keychain.test.ts', 21],
  ['test/api/user-hierarchy.test.ts', 20],
  ['test/e2e/readme-quick-start.test.ts', 20],
  ['test/e2e/path-app-attack.test.ts', 17],
  ['test/e2e/templates-and-workspaces.test.ts', 16],
  ['test/e2e/dashboard-share-browser.test.ts', 15],
  ['test/e2e/single-file.test.ts', 15],
  ['test/api/sign-in-throttle-accounts.test.ts', 14],
  ['test/e2e/dashboard-groups-browser.test.ts', 14],
  ['test/api/instance-identity.test.ts', 13],
  ['test/cli/keychain-binding.test.ts', 13],
  ['test/e2e/dashboard-quota-browser.test.ts', 12],
  ['test/e2e/dashboard-template-permissions-browser.test.ts', 12],
  ['test/cli/workspace-extras.test.ts', 12],
  ['test/e2e/dashboard-idp-sync-browser.test.ts', 12],
  ['test/e2e/crash-recovery.test.ts', 11],
  ['test/cli/health.test.ts', 11],
  ['test/e2e/dashboard-appearance-browser.test.ts', 11],
  ['test/api/hardening-timeouts.test.ts', 10],
];
const slowness = new Map(SLOW_FILES);
const onPostgres = process.env.COVE_TEST_DATABASE === 'postgres';
/**
 * Whether a file could run differently on PostgreSQL: a unit test opens no database and starts no
 * daemon, so in the run on PostgreSQL (CI's second, after the SQLite run has run every file) it
 * would only run the same code again, and each file costs its start-up. A unit test that reaches
 * the database helpers or a daemon says so by importing them, and stays. A file whose every suite
 * skips there is left out too.
 */
const differsOnPostgres = (file) => {
  const text = readFileSync(file, 'utf8');
  if (file.startsWith(join('test', 'unit')) && !/helpers\/(databases|test-daemon|run-cli)\.js/.test(text)) return false;
  return !skippedWholeOnPostgres(text);
};

/**
 * Whether every top-level suite of a file skips on PostgreSQL (`skip: THE_SQLITE_RUN_COVERS_IT`, from
 * test/helpers/databases.ts): such a file would only load its imports there, several seconds of CPU
 * each for the browser and daemon tests, to skip.
 */
function skippedWholeOnPostgres(text) {
  const starts = [...text.matchAll(/^describe(\.\w+)?\(/gm)].map((match) => match.index);
  return starts.length > 0 && starts.every((start) => text.slice(start, text.indexOf('=>', start)).includes('THE_SQLITE_RUN_COVERS_IT'));
}
const files = testFiles('test')
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .filter((file) => !onPostgres || differsOnPostgres(file))
  .sort()
  .sort((a, b) => (slowness.get(b) ?? 0) - (slowness.get(a) ?? 0));
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
if (onPostgres)
  console.log('# daemons run on PostgreSQL (COVE_TEST_DATABASE=postgres); unit tests that open no database ran in the SQLite run');
// Names this run's PostgreSQL databases (test/helpers/databases.ts), to find those left behind.
const runId = randomBytes(4).toString('hex');
// A file still running after 15 minutes (a whole pass takes about four) is failed by name and ended,
// rather than stalling the run until CI's own limit ends it with nothing said.
const tree = await writeTestTree(runId);
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-timeout=900000', ...files.map((file) => compiledPath(tree, file))],
  {
    stdio: 'inherit',
    // Weak password hashes (src/domain/passwords.ts): at the real cost, hashing took most of the suite's time.
    env: { ...process.env, COVE_SECRET_STORE: 'file', COVE_TEST_RUN_ID: runId, COVE_TEST_WEAK_PASSWORD_HASHES: '1' },
  },
);
// The migrated SQLite file this run's test databases were copied from (test/helpers/databases.ts).
rmSync(join(tmpdir(), `cove-test-template-${runId}`), { recursive: true, force: true });
rmSync(tree, { recursive: true, force: true });
const leftBehind = await dropLeftDatabases(runId);
const status = result.status ?? 1;
process.exit(status !== 0 ? status : leftBehind > 0 ? 1 : 0);

/**
 * Drops the databases of this run that a test created and did not drop, and says which: each is a
 * test that does not clean up, and they would pile up in the cluster run after run.
 */
async function dropLeftDatabases(id) {
  const url = process.env.COVE_TEST_PG_URL;
  if (!url) return 0;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: all } = await client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [`cove_test_${id}_`]);
    // The migrated database the others were copied from (test/helpers/databases.ts) is the run's, not a test's.
    const template = `cove_test_${id}_template`;
    const rows = all.filter((row) => row.datname !== template);
    for (const { datname } of all) {
      // Without FORCE when an autovacuum worker is in it: FORCE may not end those.
      await client
        .query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
        .catch(() => client.query(`DROP DATABASE IF EXISTS "${datname}"`));
    }
    if (rows.length > 0)
      console.error(`# ${rows.length} test databases were left behind (now dropped): ${rows.map((row) => row.datname).join(' ')}`);
    return rows.length;
  } finally {
    await client.end();
  }
}
