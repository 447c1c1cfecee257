import { Header, Pax } from 'tar';
import { inspectTar, type ArchiveEntryType, type TarMember } from './inspect-tar.js';

/** A file's content, optionally with its permission bits (default 0o644; 0o755 for directories). */
export type TarFileInput = string | Buffer | { readonly content: string | Buffer; readonly mode: number };

const TAR_TYPES = {
  file: 'File',
  directory: 'Directory',
  symlink: 'SymbolicLink',
  hardlink: 'Link',
} as const satisfies Record<ArchiveEntryType, string>;

/** A fixed timestamp keeps the same files producing the same bytes, so archives hash the same. */
const MTIME = new Date(0);
const BLOCK = 512;

/**
 * Builds a tar from relative paths and contents, in the map's order. A path ending in `/` is a
 * directory (its content is ignored); directories implied by other paths are not written.
 * Throws an ArchiveError when a path is unsafe (absolute, `..`, ...) or repeated.
 */
export async function createTar(files: Readonly<Record<string, TarFileInput>>): Promise<Buffer> {
  const members = Object.entries(files).map(([name, input]): TarMember => {
    const { content, mode } = typeof input === 'string' || Buffer.isBuffer(input) ? { content: input, mode: undefined } : input;
    const path = name.replace(/\/+$/, '');
    if (name.endsWith('/')) return { entry: { path, type: 'directory', size: 0, mode: mode ?? 0o755 }, data: Buffer.alloc(0) };
    const data = Buffer.from(content);
    return { entry: { path, type: 'file', size: data.length, mode: mode ?? 0o644 }, data };
  });
  const tar = writeTar(members);
  // Upload limits are for untrusted archives; here only the safety rules matter.
  await inspectTar(tar, { maxEntries: Infinity, maxTotalBytes: Infinity });
  return tar;
}

/**
 * Writes entries as a POSIX tar, adding a pax header where a path or link target does not fit
 * ustar (over 100 bytes without a usable split, or not ASCII). Does not validate the entries.
 */
export function writeTar(members: readonly TarMember[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { entry, data } of members) {
    const path = entry.type === 'directory' ? `${entry.path}/` : entry.path;
    const size = entry.type === 'file' ? data.length : 0;
    const header = new Header({
      path,
      type: TAR_TYPES[entry.type],
      mode: entry.mode,
      size,
      linkpath: entry.linkTarget,
      uid: 0,
      gid: 0,
      uname: '',
      gname: '',
      mtime: MTIME,
    });
    header.encode();
    if (header.needPax) blocks.push(new Pax({ path, linkpath: entry.linkTarget, size, mtime: MTIME }).encode());
    if (header.block) blocks.push(header.block);
    if (size > 0) blocks.push(data.subarray(0, size), Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK));
  }
  blocks.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(blocks);
}
