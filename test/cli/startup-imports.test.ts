import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const HEAVY = ['ink', 'react', 'prom-client', 'fastify', 'kysely', 'better-sqlite3', 'pg', '@sinclair/typebox', 'node-pty'];

/** Packages reached from a built file through static imports only: what loads before any command runs. */
function staticPackages(file: string, seen = new Set<string>(), packages = new Set<string>()): Set<string> {
  if (seen.has(file)) return packages;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?["']([^"']+)["']/g)) {
    const specifier = match[1] ?? '';
    if (specifier.startsWith('.')) staticPackages(join(dirname(file), specifier), seen, packages);
    else if (!specifier.startsWith('node:')) packages.add(specifier);
  }
  return packages;
}

describe('CLI start-up', () => {
  it('loads none of the heavy modules before a command runs', () => {
    const entry = join(root, 'dist', 'entry.js');
    assert.ok(existsSync(entry), 'dist/entry.js is missing: npm test builds it first');
    const loaded = [...staticPackages(entry)];
    const heavy = loaded.filter((name) => HEAVY.some((h) => name === h || name.startsWith(`${h}/`)));
    assert.deepEqual(heavy, []);
  });

  // That the plain commands load no package is test/cli/startup-split.test.ts's: they run from a
  // CommonJS part, which a module-resolution hook of the ES loader would not see.

  it('prints the version from package.json', () => {
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const result = spawnSync(join(root, 'bin', 'cove'), ['--version'], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), version);
  });
});
