import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE = join(tmpdir(), 'cove-test-single-executable');
/** A lock older than this belongs to a packaging run that died. */
const STALE_LOCK_MS = 5 * 60_000;

/**
 * The single executable of this checkout, built by `scripts/package.mjs` once per content of the
 * sources and the lock file (about 25 s) and kept in the temporary directory, so that the tests
 * that need it share one build and a second run of the suite builds nothing.
 */
export async function singleExecutable(): Promise<string> {
  const key = sourcesHash();
  const dir = join(CACHE, key);
  const file = join(dir, 'cove');
  const lock = join(CACHE, `${key}.lock`);
  mkdirSync(CACHE, { recursive: true });
  for (;;) {
    if (existsSync(file)) return file;
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another test file is building it: wait for the file, or take over a stale lock.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held !== undefined && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      await delay(500);
    }
  }
  try {
    if (existsSync(file)) return file;
    for (const old of readdirSync(CACHE)) if (!old.startsWith(key)) rmSync(join(CACHE, old), { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'package.mjs')], {
      cwd: ROOT,
      env: { ...process.env, COVE_PACKAGE_OUTPUT: file },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`npm run package failed:\n${result.stdout}\n${result.stderr}`);
    return file;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function sourcesHash(): string {
  const hash = createHash('sha256').update(`${process.version} ${process.arch}\n`);
  const files = [
    join(ROOT, 'package-lock.json'),
    join(ROOT, 'package.json'),
    join(ROOT, 'scripts', 'package.mjs'),
    join(ROOT, 'scripts', 'fast-part.mjs'),
    ...listFiles(join(ROOT, 'src')),
    // The executable carries the dashboard as built (scripts/package.mjs).
    ...(existsSync(join(ROOT, 'dist', 'web')) ? listFiles(join(ROOT, 'dist', 'web')) : []),
  ];
  for (const file of files.sort()) hash.update(file.slice(ROOT.length)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
