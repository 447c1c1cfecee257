import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { ArchiveError } from './archive-error.js';
import type { ArchiveLimits } from './archive-limits.js';
import { readTar, type ArchiveEntry, type TarMember } from './inspect-tar.js';

/** O_NOFOLLOW makes the open fail on a symlink even if one appears after the checks. */
const WRITE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW;

/**
 * Archives up to this size, in entries and in bytes, are written with synchronous calls: their
 * few dozen system calls take less than handing each to the thread pool and waiting for the event
 * loop to come back to it, which on a busy daemon is most of an extraction's time.
 */
const SMALL_ARCHIVE = { entries: 64, bytes: 256 * 1024 } as const;

/**
 * The file operations extraction makes, each returning its result or a promise of it: the same
 * steps run with blocking calls for a small archive and through the thread pool for others.
 */
interface ExtractionFs {
  realpath(path: string): string | Promise<string>;
  mkdir(path: string, options: fs.MakeDirectoryOptions): unknown;
  /** Undefined when nothing is there. */
  lstat(path: string): fs.Stats | undefined | Promise<fs.Stats | undefined>;
  chmod(path: string, mode: number): unknown;
  /** Creates or truncates a file without following a symlink, writes it, and sets its mode exactly. */
  writeFile(path: string, data: Buffer, mode: number): unknown;
  symlink(target: string, path: string): unknown;
  link(existing: string, path: string): unknown;
}

const blockingFs: ExtractionFs = {
  realpath: (path) => fs.realpathSync(path),
  mkdir: (path, options) => fs.mkdirSync(path, options),
  lstat: (path) => fs.lstatSync(path, { throwIfNoEntry: false }),
  chmod: (path, mode) => fs.chmodSync(path, mode),
  writeFile: (path, data, mode) => {
    const fd = fs.openSync(path, WRITE_FLAGS, 0o600);
    try {
      fs.writeFileSync(fd, data);
      // The open mode is filtered by the umask; fchmod sets exactly the archive's bits.
      fs.fchmodSync(fd, mode);
    } finally {
      fs.closeSync(fd);
    }
  },
  symlink: (target, path) => fs.symlinkSync(target, path),
  link: (existing, path) => fs.linkSync(existing, path),
};

const threadPoolFs: ExtractionFs = {
  realpath: (path) => fsp.realpath(path),
  mkdir: (path, options) => fsp.mkdir(path, options),
  lstat: (path) => fsp.lstat(path).catch(unlessMissing),
  chmod: (path, mode) => fsp.chmod(path, mode),
  writeFile: async (path, data, mode) => {
    const handle = await fsp.open(path, WRITE_FLAGS, 0o600);
    try {
      // Both act on the open file, so neither waits for the other.
      await Promise.all([handle.writeFile(data), handle.chmod(mode)]);
    } finally {
      await handle.close();
    }
  },
  symlink: (target, path) => fsp.symlink(target, path),
  link: (existing, path) => fsp.link(existing, path),
};

function unlessMissing(error: unknown): undefined {
  if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
  throw error;
}

/**
 * Validates a tar like inspectTar, then writes it under `directory` (created if missing).
 * Never writes through a symlink already on disk, and creates only the symlinks inspectTar
 * accepted. Modes keep their permission bits (so executables stay executable) but not
 * setuid/setgid/sticky, and directories always stay writable by their owner.
 */
export async function extractTar(tar: Buffer, directory: string, limits: Partial<ArchiveLimits> = {}): Promise<void> {
  const members = await readTar(tar, limits);
  const bytes = members.reduce((sum, member) => sum + member.data.length, 0);
  const io = members.length <= SMALL_ARCHIVE.entries && bytes <= SMALL_ARCHIVE.bytes ? blockingFs : threadPoolFs;
  const root = await realDirectory(io, directory);
  for (const member of members) await writeMember(io, root, member);
}

/** The real path of `directory`, made first only when missing: usually it was just made by the caller. */
async function realDirectory(io: ExtractionFs, directory: string): Promise<string> {
  try {
    return await io.realpath(directory);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    await io.mkdir(directory, { recursive: true });
    return io.realpath(directory);
  }
}

async function writeMember(io: ExtractionFs, root: string, { entry, data }: TarMember): Promise<void> {
  const parts = entry.path.split('/');
  await ensureDirectories(io, root, parts.slice(0, -1), entry);
  const target = join(root, ...parts);
  // A file is opened with O_NOFOLLOW, which refuses an existing symlink by itself.
  if (entry.type === 'file') return writeFile(io, target, data, entry);
  const existing = await io.lstat(target);
  if (existing?.isSymbolicLink()) throw new ArchiveError('link_escape', entry.path, 'would be written through an existing symlink');
  switch (entry.type) {
    case 'directory':
      if (existing && !existing.isDirectory()) throw new ArchiveError('corrupt', entry.path, 'is a directory where a file already exists');
      if (!existing) await io.mkdir(target, {});
      await io.chmod(target, (entry.mode & 0o777) | 0o700);
      return;
    case 'symlink':
      await io.symlink(entry.linkTarget ?? '', target);
      return;
    case 'hardlink':
      return linkTo(io, root, entry, target);
  }
}

/** Walks the parents one by one, so a symlink on disk is refused rather than followed. */
async function ensureDirectories(io: ExtractionFs, root: string, parts: readonly string[], entry: ArchiveEntry): Promise<void> {
  let current = root;
  for (const part of parts) {
    current = join(current, part);
    const stats = await io.lstat(current);
    if (stats?.isSymbolicLink()) throw new ArchiveError('link_escape', entry.path, 'would be written through an existing symlink');
    if (stats && !stats.isDirectory()) throw new ArchiveError('corrupt', entry.path, 'has a parent that is not a directory');
    if (!stats) await io.mkdir(current, { mode: 0o755 });
  }
}

async function writeFile(io: ExtractionFs, target: string, data: Buffer, entry: ArchiveEntry): Promise<void> {
  try {
    await io.writeFile(target, data, entry.mode & 0o777);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ELOOP')
      throw new ArchiveError('link_escape', entry.path, 'would be written through an existing symlink');
    throw error;
  }
}

/** inspectTar only admits hard links to earlier files; check the disk agrees before linking. */
async function linkTo(io: ExtractionFs, root: string, entry: ArchiveEntry, target: string): Promise<void> {
  const source = join(root, ...(entry.linkTarget ?? '').split('/'));
  const stats = await io.lstat(source);
  if (!stats?.isFile()) throw new ArchiveError('link_escape', entry.path, 'is a hard link to something that is not an extracted file');
  await io.link(source, target);
}
