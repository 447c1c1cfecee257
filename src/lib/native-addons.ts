import { createHash } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { getAsset } from 'node:sea';
import { VERSION } from './version.js';

/** Filled in by `npm run package`: each embedded addon's asset name and SHA-256. */
declare const COVE_NATIVE_ADDONS: Readonly<Record<string, string>>;

const loaded = new Map<string, unknown>();

/**
 * The directory the single executable writes its native addons to, `$XDG_CACHE_HOME/cove/<version>`
 * (`~/.cache` without XDG_CACHE_HOME): a shared library can only be loaded from a file.
 */
export function nativeAddonDirectory(): string {
  const cache = process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(cache, 'cove', VERSION);
}

/**
 * Loads an addon embedded in the single executable by its file name (`better_sqlite3.node`). The
 * file is written to the cache directory the first time and checked against the hash recorded at
 * build time before every load, so a file left by another build of the same version, a torn write
 * or a change by someone else is replaced, never loaded. Throws for an addon the executable does
 * not carry, which is how packages with a pure-JS fallback (ssh2, bufferutil) take it.
 */
export function loadNativeAddon(name: string): unknown {
  const cached = loaded.get(name);
  if (cached !== undefined) return cached;
  const file = extractAsset(name);
  const module = { exports: {} as unknown };
  process.dlopen(module, file);
  loaded.set(name, module.exports);
  return module.exports;
}

/**
 * Writes an asset embedded in the single executable (an addon, or a module that must load from a
 * file) to the cache directory, unless the file there already has the hash recorded at build time,
 * and returns its path. Throws for an asset the executable does not carry.
 */
export function extractAsset(name: string): string {
  const expected = COVE_NATIVE_ADDONS[name];
  if (expected === undefined) throw new Error(`${name} is not part of this executable`);
  const dir = privateDirectory(nativeAddonDirectory());
  const file = join(dir, name);
  if (fileHash(file) !== expected) {
    writeAtomically(file, new Uint8Array(getAsset(name)));
    const written = fileHash(file);
    if (written !== expected) throw new Error(`${file}: sha256 ${written ?? 'unreadable'} after writing, expected ${expected}`);
  }
  return file;
}

/** Creates the directory 0700 and refuses one that another user owns or others may write to. */
function privateDirectory(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid())
    throw new Error(`${dir} belongs to another user; remove it or set XDG_CACHE_HOME`);
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

function fileHash(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/** Temporary file and rename: a process that loads the addon meanwhile sees the old file or the new one. */
function writeAtomically(file: string, bytes: Uint8Array): void {
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o700);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
}
