// Runs every test file under test/ with node's test runner through tsx. Node 20 neither expands
// globs nor discovers .ts files, so the list is made here. Extra arguments filter by path; a run of
// the whole suite first type-checks, lints and checks formatting, so none of them can be skipped,
// except by `--tests-only`: for a second run of the same tree (CI's run on PostgreSQL, with
// COVE_TEST_DATABASE=postgres), whose checks the first run has made.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

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
const files = testFiles('test')
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
if (process.env.COVE_TEST_DATABASE === 'postgres') console.log('# daemons run on PostgreSQL (COVE_TEST_DATABASE=postgres)');
// Names this run's PostgreSQL databases (test/helpers/databases.ts), to find those left behind.
const runId = randomBytes(4).toString('hex');
// A file still running after 15 minutes (a whole pass takes about four) is failed by name and ended,
// rather than stalling the run until CI's own limit ends it with nothing said.
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=900000', ...files], {
  stdio: 'inherit',
  // Weak password hashes (src/domain/passwords.ts): at the real cost, hashing took most of the suite's time.
  env: { ...process.env, COVE_SECRET_STORE: 'file', COVE_TEST_RUN_ID: runId, COVE_TEST_WEAK_PASSWORD_HASHES: '1' },
});
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
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [`cove_test_${id}_`]);
    for (const { datname } of rows) {
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
