import { constants, type Stats } from 'node:fs';
import { chmod, link, lstat, mkdir, open, realpath, symlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ArchiveError } from './archive-error.js';
import type { ArchiveLimits } from './archive-limits.js';
import { readTar, type ArchiveEntry, type TarMember } from './inspect-tar.js';

/** O_NOFOLLOW makes the open fail on a symlink even if one appears after the checks. */
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/**
 * Validates a tar like inspectTar, then writes it under `directory` (created if missing).
 * Never writes through a symlink already on disk, and creates only the symlinks inspectTar
 * accepted. Modes keep their permission bits (so executables stay executable) but not
 * setuid/setgid/sticky, and directories always stay writable by their owner.
 */
export async function extractTar(tar: Buffer, directory: string, limits: Partial<ArchiveLimits> = {}): Promise<void> {
  const members = await readTar(tar, limits);
  const root = await realDirectory(directory);
  for (const member of members) await writeMember(root, member);
}

/** The real path of `directory`, made first only when missing: usually it was just made by the caller. */
async function realDirectory(directory: string): Promise<string> {
  try {
    return await realpath(directory);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    await mkdir(directory, { recursive: true });
    return realpath(directory);
  }
}

async function writeMember(root: string, { entry, data }: TarMember): Promise<void> {
  const parts = entry.path.split('/');
  await ensureDirectories(root, parts.slice(0, -1), entry);
  const target = join(root, ...parts);
  // A file is opened with O_NOFOLLOW, which refuses an existing symlink by itself.
  if (entry.type === 'file') return writeFile(target, data, entry);
  const existing = await lstatOrUndefined(target);
  if (existing?.isSymbolicLink()) throw new ArchiveError('link_escape', entry.path, 'would be written through an existing symlink');
  switch (entry.type) {
    case 'directory':
      if (existing && !existing.isDirectory()) throw new ArchiveError('corrupt', entry.path, 'is a directory where a file already exists');
      if (!existing) await mkdir(target);
      await chmod(target, (entry.mode & 0o777) | 0o700);
      return;
    case 'symlink':
      return symlink(entry.linkTarget ?? '', target);
    case 'hardlink':
      return linkTo(root, entry, target);
  }
}

/** Walks the parents one by one, so a symlink on disk is refused rather than followed. */
async function ensureDirectories(root: string, parts: readonly string[], entry: ArchiveEntry): Promise<void> {
  let current = root;
  for (const part of parts) {
    current = join(current, part);
    const stats = await lstatOrUndefined(current);
    if (stats?.isSymbolicLink()) throw new ArchiveError('link_escape', entry.path, 'would be written through an existing symlink');
    if (stats && !stats.isDirectory()) throw new ArchiveError('corrupt', entry.path, 'has a parent that is not a directory');
    if (!stats) await mkdir(current, { mode: 0o755 });
  }
}

async function writeFile(target: string, data: Buffer, entry: ArchiveEntry): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(target, WRITE_FLAGS, 0o600);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ELOOP')
      throw new ArchiveError('link_escape', entry.path, 'would be written through an existing symlink');
    throw error;
  }
  try {
    // The open mode is filtered by the umask; chmod sets exactly the archive's bits. Both act on
    // the open file, so neither waits for the other.
    await Promise.all([handle.writeFile(data), handle.chmod(entry.mode & 0o777)]);
  } finally {
    await handle.close();
  }
}

/** inspectTar only admits hard links to earlier files; check the disk agrees before linking. */
async function linkTo(root: string, entry: ArchiveEntry, target: string): Promise<void> {
  const source = join(root, ...(entry.linkTarget ?? '').split('/'));
  const stats = await lstatOrUndefined(source);
  if (!stats?.isFile()) throw new ArchiveError('link_escape', entry.path, 'is a hard link to something that is not an extracted file');
  await link(source, target);
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
}
