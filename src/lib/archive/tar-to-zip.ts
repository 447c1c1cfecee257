import { constants } from 'node:fs';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { ArchiveError } from './archive-error.js';
import type { ArchiveLimits } from './archive-limits.js';
import { readTar, type TarMember } from './inspect-tar.js';

/** Unix, so readers take the mode from the high half of the external attributes. */
const UNIX_HOST = 3;
const MS_DOS_DIRECTORY = 0x10;
const ZIP32_MAX = 0xffffffff;
/**
 * The DOS epoch, 1980-01-01 00:00, as a local time: zip timestamps are local wall-clock fields, and
 * a fixed one keeps conversions of the same tar byte-identical.
 */
const MTIME = new Date(1980, 0, 1);

/**
 * Converts a tar to a zip (written by fflate) with Unix modes in the external attributes;
 * directories become `name/` entries, symlinks Unix symlink entries, and hard links copies of the
 * file they link to. The tar is read with the same validation as inspectTar. Throws an ArchiveError
 * (`unsupported`) when the result would need zip64.
 */
export async function tarToZip(tar: Buffer, limits: Partial<ArchiveLimits> = {}): Promise<Buffer> {
  const members = await readTar(tar, limits);
  if (members.length > 0xffff) throw new ArchiveError('unsupported', undefined, 'is too big for a zip without zip64');
  const byPath = new Map(members.map((member) => [member.entry.path, member]));
  const chunks: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    failure ??= error;
    if (chunk.length > 0) chunks.push(chunk);
  });
  for (const member of members) addMember(zip, member, byPath);
  zip.end();
  if (failure) throw new ArchiveError('corrupt', undefined, `could not be written as a zip: ${(failure as Error).message}`);
  const result = Buffer.concat(chunks);
  if (result.length > ZIP32_MAX) throw new ArchiveError('unsupported', undefined, 'is too big for a zip without zip64');
  return result;
}

function addMember(zip: Zip, { entry, data }: TarMember, byPath: ReadonlyMap<string, TarMember>): void {
  switch (entry.type) {
    case 'directory':
      return add(
        zip,
        new ZipPassThrough(`${entry.path}/`),
        Buffer.alloc(0),
        unixAttributes(constants.S_IFDIR, entry.mode) | MS_DOS_DIRECTORY,
      );
    case 'symlink':
      return add(zip, new ZipPassThrough(entry.path), Buffer.from(entry.linkTarget ?? ''), unixAttributes(constants.S_IFLNK, 0o777));
    case 'hardlink': {
      // readTar guarantees the target is an earlier file.
      const target = byPath.get(entry.linkTarget ?? '');
      return addFile(zip, entry.path, target?.data ?? Buffer.alloc(0), target?.entry.mode ?? entry.mode);
    }
    case 'file':
      return addFile(zip, entry.path, data, entry.mode);
  }
}

function addFile(zip: Zip, path: string, data: Buffer, mode: number): void {
  if (data.length > ZIP32_MAX) throw new ArchiveError('unsupported', path, 'is too big for a zip without zip64');
  add(zip, new ZipDeflate(path), data, unixAttributes(constants.S_IFREG, mode));
}

function add(zip: Zip, file: ZipDeflate | ZipPassThrough, data: Buffer, attributes: number): void {
  file.os = UNIX_HOST;
  file.attrs = attributes;
  file.mtime = MTIME;
  zip.add(file);
  file.push(data, true);
}

function unixAttributes(fileType: number, mode: number): number {
  return ((fileType | (mode & 0o7777)) << 16) >>> 0;
}
