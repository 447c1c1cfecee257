import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

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

  it('loads no package from node_modules for the commands that only ask the daemon', () => {
    // commander is bundled into dist (scripts/build.mjs): loaded as CommonJS from node_modules, it
    // cost every command's start about 5 ms.
    // A module-resolution hook reports every package a run loads, statically or not.
    const dir = mkdtempSync(join(tmpdir(), 'cove-startup-'));
    try {
      writeFileSync(
        join(dir, 'hooks.mjs'),
        `export async function resolve(specifier, context, next) {
          const resolved = await next(specifier, context);
          const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(resolved.url);
          if (match) process.stderr.write('package ' + match[1] + '\\n');
          return resolved;
        }`,
      );
      writeFileSync(
        join(dir, 'register.mjs'),
        `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});`,
      );
      for (const args of [['whoami'], ['ls'], ['templates', 'list']]) {
        const result = spawnSync(join(root, 'bin', 'cove'), [...args, '--url', 'http://127.0.0.1:1', '--token', 'x'], {
          encoding: 'utf8',
          env: { ...process.env, COVE_CONFIG_DIR: join(dir, 'config'), NODE_OPTIONS: `--import ${join(dir, 'register.mjs')}` },
        });
        assert.match(result.stderr, /Could not reach the deployment/, args.join(' '));
        const packages = new Set([...result.stderr.matchAll(/^package (\S+)$/gm)].map((match) => match[1]));
        assert.deepEqual([...packages], [], args.join(' '));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints the version from package.json', () => {
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const result = spawnSync(join(root, 'bin', 'cove'), ['--version'], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), version);
  });
});
