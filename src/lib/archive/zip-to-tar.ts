import { constants } from 'node:fs';
import { promisify } from 'node:util';
import { crc32, inflateRaw as inflateRawCallback } from 'node:zlib';
import { ArchiveError } from './archive-error.js';
import { defaultArchiveLimits, type ArchiveLimits } from './archive-limits.js';
import { writeTar } from './create-tar.js';
import { inspectTar, type ArchiveEntryType, type TarMember } from './inspect-tar.js';

const inflateRaw = promisify(inflateRawCallback);

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const END_RECORD_SIZE = 22;
const MAX_COMMENT = 0xffff;
const UNIX_HOST = 3;
const ENCRYPTED = 0x0001;
const MS_DOS_DIRECTORY = 0x10;
/** Values that say "look in the zip64 extra field instead". */
const ZIP64_MARKERS = new Set([0xffff, 0xffffffff]);

/** What the central directory says about one entry. */
interface CentralEntry {
  readonly name: string;
  readonly type: ArchiveEntryType;
  readonly mode: number;
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localOffset: number;
}

/**
 * Converts a zip (stored or deflate entries) to a tar, refusing anything inspectTar would refuse plus
 * zip bombs: declared sizes are checked against the limits before anything is inflated, and inflating
 * stops at the declared size. Unix symlinks (external attributes) become tar symlinks, checked like
 * any other. Zip64, encryption and multi-disk archives are refused as `unsupported`.
 */
export async function zipToTar(zip: Buffer, limits: Partial<ArchiveLimits> = {}): Promise<Buffer> {
  const resolved = { ...defaultArchiveLimits, ...limits };
  const entries = centralDirectory(zip, resolved);
  const members: TarMember[] = [];
  for (const entry of entries) members.push(await toMember(zip, entry));
  const tar = writeTar(members);
  // Path, link and duplicate rules live in one place: the tar reader.
  await inspectTar(tar, resolved);
  return tar;
}

function centralDirectory(zip: Buffer, limits: ArchiveLimits): CentralEntry[] {
  const end = findEndRecord(zip);
  if (zip.readUInt16LE(end + 4) !== 0 || zip.readUInt16LE(end + 6) !== 0) {
    throw new ArchiveError('unsupported', undefined, 'spans several disks');
  }
  const count = zip.readUInt16LE(end + 10);
  const size = zip.readUInt32LE(end + 12);
  let offset = zip.readUInt32LE(end + 16);
  if ([count, size, offset].some((value) => ZIP64_MARKERS.has(value))) throw new ArchiveError('unsupported', undefined, 'uses zip64');
  if (offset + size > end) throw new ArchiveError('corrupt', undefined, 'has a central directory outside the file');
  const entries: CentralEntry[] = [];
  let totalBytes = 0;
  for (let index = 0; index < count; index += 1) {
    const entry = centralEntry(zip, offset, end);
    offset += 46 + zip.readUInt16LE(offset + 28) + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
    if (index >= limits.maxEntries)
      throw new ArchiveError('too_many_entries', entry.name, `goes over the limit of ${limits.maxEntries} entries`);
    totalBytes += entry.size;
    if (totalBytes > limits.maxTotalBytes) {
      throw new ArchiveError('too_large', entry.name, `brings the total size over the limit of ${limits.maxTotalBytes} bytes`);
    }
    if (entry.size / Math.max(entry.compressedSize, 1) > limits.maxCompressionRatio) {
      throw new ArchiveError(
        'compression_ratio',
        entry.name,
        `compresses ${entry.size} bytes into ${entry.compressedSize}, over the ratio limit of ${limits.maxCompressionRatio}`,
      );
    }
    entries.push(entry);
  }
  return entries;
}

/** The end-of-central-directory record sits in the last 22 bytes plus an optional comment. */
function findEndRecord(zip: Buffer): number {
  const earliest = Math.max(0, zip.length - END_RECORD_SIZE - MAX_COMMENT);
  for (let offset = zip.length - END_RECORD_SIZE; offset >= earliest; offset -= 1) {
    if (zip.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new ArchiveError('corrupt', undefined, 'is not a zip: no end of central directory record');
}

function centralEntry(zip: Buffer, offset: number, end: number): CentralEntry {
  if (offset + 46 > end || zip.readUInt32LE(offset) !== CENTRAL_HEADER) {
    throw new ArchiveError('corrupt', undefined, `has a broken central directory at byte ${offset}`);
  }
  const nameLength = zip.readUInt16LE(offset + 28);
  if (offset + 46 + nameLength > end) throw new ArchiveError('corrupt', undefined, `has a broken central directory at byte ${offset}`);
  // Names are taken as UTF-8 even without the UTF-8 flag: tools that write other code pages are rare.
  const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
  const flags = zip.readUInt16LE(offset + 8);
  const method = zip.readUInt16LE(offset + 10);
  const compressedSize = zip.readUInt32LE(offset + 20);
  const size = zip.readUInt32LE(offset + 24);
  const localOffset = zip.readUInt32LE(offset + 42);
  if (flags & ENCRYPTED) throw new ArchiveError('unsupported', name, 'is encrypted');
  if (method !== 0 && method !== 8)
    throw new ArchiveError('unsupported', name, `uses compression method ${method}; only stored and deflate are supported`);
  if ([compressedSize, size, localOffset].some((value) => ZIP64_MARKERS.has(value)))
    throw new ArchiveError('unsupported', name, 'uses zip64');
  const { type, mode } = typeAndMode(name, zip.readUInt8(offset + 5), zip.readUInt32LE(offset + 38));
  return { name, type, mode, method, crc: zip.readUInt32LE(offset + 16), compressedSize, size, localOffset };
}

/** Unix zips keep `st_mode` in the high half of the external attributes; others only have a DOS directory bit. */
function typeAndMode(name: string, host: number, attributes: number): { type: ArchiveEntryType; mode: number } {
  const unixMode = host === UNIX_HOST ? attributes >>> 16 : 0;
  const permissions = unixMode & 0o7777;
  const isDirectory = name.endsWith('/') || (attributes & MS_DOS_DIRECTORY) !== 0;
  switch (unixMode & constants.S_IFMT) {
    case constants.S_IFLNK:
      return { type: 'symlink', mode: 0o777 };
    case constants.S_IFDIR:
      return { type: 'directory', mode: permissions || 0o755 };
    case constants.S_IFREG:
    case 0:
      return isDirectory ? { type: 'directory', mode: permissions || 0o755 } : { type: 'file', mode: permissions || 0o644 };
    default:
      throw new ArchiveError('special_file', name, 'is a device, FIFO or socket, which templates may not contain');
  }
}

async function toMember(zip: Buffer, entry: CentralEntry): Promise<TarMember> {
  const data = await entryData(zip, entry);
  const path = entry.name.replace(/\/+$/, '');
  const { type, mode } = entry;
  if (type === 'symlink') return { entry: { path, type, mode, size: 0, linkTarget: data.toString('utf8') }, data: Buffer.alloc(0) };
  if (type === 'directory') return { entry: { path, type, mode, size: 0 }, data: Buffer.alloc(0) };
  return { entry: { path, type, mode, size: data.length }, data };
}

async function entryData(zip: Buffer, entry: CentralEntry): Promise<Buffer> {
  const at = entry.localOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL_HEADER) throw new ArchiveError('corrupt', entry.name, 'has no local header');
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const raw = zip.subarray(start, start + entry.compressedSize);
  if (raw.length < entry.compressedSize) throw new ArchiveError('corrupt', entry.name, 'is truncated');
  const data = entry.method === 0 ? raw : await inflate(raw, entry);
  if (data.length !== entry.size)
    throw new ArchiveError('corrupt', entry.name, `holds ${data.length} bytes, not the declared ${entry.size}`);
  if (crc32(data) !== entry.crc) throw new ArchiveError('corrupt', entry.name, 'fails its CRC check');
  return data;
}

async function inflate(raw: Buffer, entry: CentralEntry): Promise<Buffer> {
  try {
    // The declared size was checked against the limits; refusing to inflate past it stops lying headers.
    return await inflateRaw(raw, { maxOutputLength: Math.max(entry.size, 1) });
  } catch (error) {
    const tooBig = (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
    throw new ArchiveError('corrupt', entry.name, tooBig ? `inflates past its declared ${entry.size} bytes` : 'is not valid deflate data');
  }
}
