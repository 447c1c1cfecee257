import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { ArchiveError } from '../lib/archive/archive-error.js';
import type { TarMember } from '../lib/archive/index.js';
import { CliError } from './cli-error.js';

/** The largest template `cove templates push` uploads, counting the bytes of its files. */
export const MAX_TEMPLATE_BYTES = 100 * 1024 * 1024;

/** A file at the top of a template directory whose gitignore-style patterns leave paths out of the upload. */
export const IGNORE_FILE = '.coveignore';

/** Never part of a template: version control, dependencies and terraform's own caches. */
const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(['.git', 'node_modules', '.terraform']);

/**
 * Tars a template directory for upload: every file with its permission bits (so scripts stay
 * executable), in a stable order so the same directory gives the same bytes (the daemon keeps
 * one copy per hash). Leaves out `.git`, `node_modules`, `.terraform` and what `.coveignore`
 * names; keeps symlinks that stay inside the directory and refuses the others.
 */
export async function tarTemplateDirectory(directory: string, options: { readonly maxBytes?: number } = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? MAX_TEMPLATE_BYTES;
  const walk = new Walk(directory, await readIgnoreRules(directory), maxBytes);
  await walk.directory('');
  // The tar library loads here, not when the CLI starts: most commands never pack an archive.
  const { inspectTar, writeTar } = await import('../lib/archive/index.js');
  const tar = writeTar(walk.members);
  if (tar.length > maxBytes) throw tooLarge(directory, maxBytes);
  try {
    // The daemon refuses what is unsafe anyway; checking here names the culprit before the upload.
    await inspectTar(tar, { maxTotalBytes: maxBytes, maxEntries: Infinity });
  } catch (error) {
    if (error instanceof ArchiveError) throw new CliError(`${directory} cannot be uploaded: ${error.message}`);
    throw error;
  }
  return tar;
}

class Walk {
  readonly members: TarMember[] = [];
  #bytes = 0;

  constructor(
    readonly root: string,
    readonly ignore: IgnoreRules,
    readonly maxBytes: number,
  ) {}

  async directory(relative: string): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(join(this.root, relative), { withFileTypes: true });
    } catch (error) {
      if (relative === '') throw new CliError(`Cannot read the template directory ${this.root}: ${(error as Error).message}`);
      throw error;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (ALWAYS_SKIPPED.has(entry.name) || this.ignore.ignores(path, entry.isDirectory())) continue;
      await this.entry(path);
    }
  }

  async entry(path: string): Promise<void> {
    const full = join(this.root, ...path.split('/'));
    const stats = await lstat(full);
    const mode = stats.mode & 0o777;
    if (stats.isDirectory()) {
      this.members.push({ entry: { path, type: 'directory', size: 0, mode }, data: Buffer.alloc(0) });
      return this.directory(path);
    }
    if (stats.isSymbolicLink()) return this.symlink(path, await readlink(full));
    if (!stats.isFile())
      throw new CliError(`${full} is neither a file, a directory nor a symlink.`, { hint: `Remove it or name it in ${IGNORE_FILE}.` });
    this.#bytes += stats.size;
    if (this.#bytes > this.maxBytes) throw tooLarge(this.root, this.maxBytes);
    const data = await readFile(full);
    this.members.push({ entry: { path, type: 'file', size: data.length, mode }, data });
  }

  symlink(path: string, target: string): void {
    const resolved = posix.normalize(posix.join(posix.dirname(path), target.replaceAll('\\', '/')));
    if (posix.isAbsolute(target) || resolved === '..' || resolved.startsWith('../')) {
      throw new CliError(`${join(this.root, path)} is a symlink to ${target}, outside the template directory.`, {
        hint: `Copy what it points to into the directory, or name it in ${IGNORE_FILE}.`,
      });
    }
    this.members.push({ entry: { path, type: 'symlink', size: 0, mode: 0o777, linkTarget: target }, data: Buffer.alloc(0) });
  }
}

function tooLarge(directory: string, maxBytes: number): CliError {
  return new CliError(`${directory} is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB, the most a template may hold.`, {
    hint: `Leave out build outputs and data with a ${IGNORE_FILE} file (gitignore syntax).`,
  });
}

/** Which paths a `.coveignore` leaves out. */
export interface IgnoreRules {
  /** Whether `path` (posix, relative to the template directory) is left out. */
  ignores(path: string, isDirectory: boolean): boolean;
}

interface IgnoreRule {
  readonly pattern: RegExp;
  readonly negate: boolean;
  readonly directoryOnly: boolean;
}

async function readIgnoreRules(directory: string): Promise<IgnoreRules> {
  let text: string;
  try {
    text = await readFile(join(directory, IGNORE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
      return parseIgnoreRules('');
    throw error;
  }
  return parseIgnoreRules(text);
}

/**
 * Reads gitignore-style patterns: `#` comments, `!` to re-include, a trailing `/` for directories
 * only, a `/` at the start or inside to anchor at the top, and `*`, `?`, `**` and `[...]`. As in
 * git, the last matching pattern wins, and a left-out directory takes its contents with it.
 */
export function parseIgnoreRules(text: string): IgnoreRules {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1);
    const directoryOnly = line.endsWith('/');
    line = line.replace(/\/+$/, '');
    const anchored = line.includes('/');
    line = line.replace(/^\/+/, '');
    if (line === '') continue;
    const body = globToRegExp(line);
    rules.push({ pattern: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`), negate, directoryOnly });
  }
  return {
    ignores(path, isDirectory) {
      let ignored = false;
      for (const rule of rules) {
        if (rule.directoryOnly && !isDirectory) continue;
        if (rule.pattern.test(path)) ignored = !rule.negate;
      }
      return ignored;
    },
  };
}

function globToRegExp(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? '';
    if (glob.startsWith('**/', i)) {
      out += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('/**', i) && i + 3 === glob.length) {
      out += '(?:/.*)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      out += '.*';
      i += 1;
    } else if (char === '*') {
      out += '[^/]*';
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        const set = glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replaceAll('\\', '\\\\');
        out += `[${set}]`;
        i = end;
      }
    } else if (char === '\\' && i + 1 < glob.length) {
      out += escapeRegExp(glob[i + 1] ?? '');
      i += 1;
    } else {
      out += escapeRegExp(char);
    }
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
