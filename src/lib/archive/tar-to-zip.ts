import { constants } from 'node:fs';
import { promisify } from 'node:util';
import { crc32, deflateRaw as deflateRawCallback } from 'node:zlib';
import { ArchiveError } from './archive-error.js';
import type { ArchiveLimits } from './archive-limits.js';
import { readTar, type TarMember } from './inspect-tar.js';

const deflateRaw = promisify(deflateRawCallback);

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** Made by Unix (3) with zip 2.0, so readers take the mode from the high half of the external attributes. */
const VERSION_MADE_BY = (3 << 8) | 20;
const VERSION_NEEDED = 20;
const UTF8_NAMES = 0x0800;
/** 1980-01-01 00:00, the DOS epoch: a fixed time keeps conversions reproducible. */
const DOS_TIME = 0;
const DOS_DATE = (1 << 5) | 1;
const MS_DOS_DIRECTORY = 0x10;
const ZIP32_MAX = 0xffffffff;

interface ZipRecord {
  readonly name: Buffer;
  readonly method: 0 | 8;
  readonly crc: number;
  readonly size: number;
  readonly body: Buffer;
  readonly externalAttributes: number;
}

/**
 * Converts a tar to a zip with Unix modes in the external attributes; directories become `name/`
 * entries, symlinks Unix symlink entries, and hard links copies of the file they link to.
 * The tar is read with the same validation as inspectTar. Throws an ArchiveError (`unsupported`)
 * when the result would need zip64.
 */
export async function tarToZip(tar: Buffer, limits: Partial<ArchiveLimits> = {}): Promise<Buffer> {
  const members = await readTar(tar, limits);
  const byPath = new Map(members.map((member) => [member.entry.path, member]));
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const record = await zipRecord(member, byPath);
    const local = localHeader(record);
    central.push(centralHeader(record, offset));
    parts.push(local, record.body);
    offset += local.length + record.body.length;
  }
  const directory = Buffer.concat(central);
  if (offset + directory.length > ZIP32_MAX || members.length > 0xffff) {
    throw new ArchiveError('unsupported', undefined, 'is too big for a zip without zip64');
  }
  return Buffer.concat([...parts, directory, endOfCentralDirectory(members.length, directory.length, offset)]);
}

async function zipRecord({ entry, data }: TarMember, byPath: ReadonlyMap<string, TarMember>): Promise<ZipRecord> {
  const name = Buffer.from(entry.type === 'directory' ? `${entry.path}/` : entry.path);
  switch (entry.type) {
    case 'directory':
      return {
        name,
        method: 0,
        crc: 0,
        size: 0,
        body: data,
        externalAttributes: unixAttributes(constants.S_IFDIR, entry.mode) | MS_DOS_DIRECTORY,
      };
    case 'symlink':
      return stored(name, Buffer.from(entry.linkTarget ?? ''), unixAttributes(constants.S_IFLNK, 0o777));
    case 'hardlink': {
      // readTar guarantees the target is an earlier file.
      const target = byPath.get(entry.linkTarget ?? '');
      return compressed(name, target?.data ?? Buffer.alloc(0), target?.entry.mode ?? entry.mode);
    }
    case 'file':
      return compressed(name, data, entry.mode);
  }
}

async function compressed(name: Buffer, data: Buffer, mode: number): Promise<ZipRecord> {
  const attributes = unixAttributes(constants.S_IFREG, mode);
  if (data.length > ZIP32_MAX) throw new ArchiveError('unsupported', name.toString(), 'is too big for a zip without zip64');
  const deflated = await deflateRaw(data);
  if (deflated.length >= data.length) return stored(name, data, attributes);
  return { name, method: 8, crc: crc32(data), size: data.length, body: deflated, externalAttributes: attributes };
}

function stored(name: Buffer, data: Buffer, externalAttributes: number): ZipRecord {
  return { name, method: 0, crc: crc32(data), size: data.length, body: data, externalAttributes };
}

function unixAttributes(fileType: number, mode: number): number {
  return ((fileType | (mode & 0o7777)) << 16) >>> 0;
}

function localHeader(record: ZipRecord): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  header.writeUInt16LE(VERSION_NEEDED, 4);
  header.writeUInt16LE(UTF8_NAMES, 6);
  header.writeUInt16LE(record.method, 8);
  header.writeUInt16LE(DOS_TIME, 10);
  header.writeUInt16LE(DOS_DATE, 12);
  header.writeUInt32LE(record.crc, 14);
  header.writeUInt32LE(record.body.length, 18);
  header.writeUInt32LE(record.size, 22);
  header.writeUInt16LE(record.name.length, 26);
  return Buffer.concat([header, record.name]);
}

function centralHeader(record: ZipRecord, localOffset: number): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(CENTRAL_HEADER, 0);
  header.writeUInt16LE(VERSION_MADE_BY, 4);
  header.writeUInt16LE(VERSION_NEEDED, 6);
  header.writeUInt16LE(UTF8_NAMES, 8);
  header.writeUInt16LE(record.method, 10);
  header.writeUInt16LE(DOS_TIME, 12);
  header.writeUInt16LE(DOS_DATE, 14);
  header.writeUInt32LE(record.crc, 16);
  header.writeUInt32LE(record.body.length, 20);
  header.writeUInt32LE(record.size, 24);
  header.writeUInt16LE(record.name.length, 28);
  header.writeUInt32LE(record.externalAttributes, 38);
  header.writeUInt32LE(Math.min(localOffset, ZIP32_MAX), 42);
  return Buffer.concat([header, record.name]);
}

function endOfCentralDirectory(count: number, size: number, offset: number): Buffer {
  const record = Buffer.alloc(22);
  record.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  record.writeUInt16LE(count, 8);
  record.writeUInt16LE(count, 10);
  record.writeUInt32LE(size, 12);
  record.writeUInt32LE(offset, 16);
  return record;
}
