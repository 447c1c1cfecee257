// Runs every test file under test/ with node's test runner through tsx. Node 20 neither expands
// globs nor discovers .ts files, so the list is made here. Extra arguments filter by path; a run of
// the whole suite first type-checks, lints and checks formatting, so none of them can be skipped.
import { spawnSync } from 'node:child_process';
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

const filters = process.argv.slice(2);
if (filters.length === 0) {
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
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  env: { ...process.env, COVE_SECRET_STORE: 'file' },
});
process.exit(result.status ?? 1);
