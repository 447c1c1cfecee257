import { constants as bufferConstants } from 'node:buffer';
import { posix } from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import { ArchiveError } from './archive-error.js';
import { defaultArchiveLimits, type ArchiveLimits } from './archive-limits.js';

const gunzip = promisify(gunzipCallback);

export type ArchiveEntryType = 'file' | 'directory' | 'symlink' | 'hardlink';

/** One validated entry: a normalised posix path below the archive root, without a leading `./`. */
export interface ArchiveEntry {
  readonly path: string;
  readonly type: ArchiveEntryType;
  /** Bytes of content; 0 for anything but a file. */
  readonly size: number;
  /** Permission bits, e.g. 0o755. */
  readonly mode: number;
  /** A symlink's target as stored, or a hard link's normalised archive path. */
  readonly linkTarget?: string;
}

/** A validated entry and its content (empty for anything but a file). */
export interface TarMember {
  readonly entry: ArchiveEntry;
  readonly data: Buffer;
}

const BLOCK = 512;
/** Pax and GNU long-name bodies hold a few names; anything bigger is not a template. */
const MAX_META_BYTES = 1024 * 1024;
/** Absolute paths, Windows drive letters, backslashes and NULs; any of them can leave the root somewhere. */
const UNSAFE_NAME = /^\/|^[a-zA-Z]:|[\\\0]/;

const ENTRY_TYPES: Readonly<Record<string, ArchiveEntryType>> = {
  '0': 'file',
  '\0': 'file',
  '7': 'file',
  '1': 'hardlink',
  '2': 'symlink',
  '5': 'directory',
};
const SPECIAL_TYPES: Readonly<Record<string, string>> = {
  '3': 'character device',
  '4': 'block device',
  '6': 'FIFO',
};

interface RawHeader {
  readonly name: string;
  readonly mode: number;
  readonly size: number;
  readonly typeflag: string;
  readonly linkName: string;
}

/** Values that pax (`x`) and GNU long-name (`L`, `K`) headers set for the entry that follows them. */
interface Overrides {
  readonly path?: string;
  readonly linkpath?: string;
  readonly size?: number;
}

/**
 * Lists and validates every entry of a tar (plain or gzip-compressed).
 * Throws an ArchiveError naming the first entry that is unsafe, over a limit or unreadable.
 */
export async function inspectTar(tar: Buffer, limits: Partial<ArchiveLimits> = {}): Promise<readonly ArchiveEntry[]> {
  return (await readTar(tar, limits)).map((member) => member.entry);
}

/**
 * Like inspectTar, but also returns each entry's content (views into the buffer, not copies).
 * Understands ustar, pax (`x`) and GNU long names (`L`, `K`); global pax headers are ignored.
 */
export async function readTar(tar: Buffer, limits: Partial<ArchiveLimits> = {}): Promise<readonly TarMember[]> {
  const resolved = { ...defaultArchiveLimits, ...limits };
  const body = tar[0] === 0x1f && tar[1] === 0x8b ? await gunzipBounded(tar, resolved) : tar;
  const admission = new Admission(resolved);
  const members: TarMember[] = [];
  let overrides: Overrides = {};
  for (let offset = 0; ;) {
    const block = body.subarray(offset, offset + BLOCK);
    if (block.length < BLOCK) throw new ArchiveError('corrupt', undefined, 'is truncated or not a tar: no end-of-archive marker');
    // Tools disagree on one or two zero blocks at the end; the first is enough.
    if (block.every((byte) => byte === 0)) return members;
    const header = decodeHeader(block, offset);
    const dataSize = header.typeflag === '5' ? 0 : isMeta(header.typeflag) ? header.size : (overrides.size ?? header.size);
    const data = body.subarray(offset + BLOCK, offset + BLOCK + dataSize);
    const name = overrides.path ?? header.name;
    if (data.length < dataSize) throw new ArchiveError('corrupt', name, 'is truncated');
    offset += BLOCK + Math.ceil(dataSize / BLOCK) * BLOCK;
    if (isMeta(header.typeflag)) {
      overrides = applyMeta(overrides, header, data);
      continue;
    }
    const entry = admission.admit(name, header, overrides.linkpath ?? header.linkName, dataSize);
    overrides = {};
    if (entry) members.push({ entry, data: entry.type === 'file' ? data : Buffer.alloc(0) });
  }
}

async function gunzipBounded(tar: Buffer, limits: ArchiveLimits): Promise<Buffer> {
  // Headers and padding come on top of the file bytes: allow about three blocks per entry.
  const bound = Math.min(limits.maxTotalBytes + (limits.maxEntries + 2) * 3 * BLOCK, bufferConstants.MAX_LENGTH);
  try {
    return await gunzip(tar, { maxOutputLength: bound });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new ArchiveError('too_large', undefined, `decompresses to more than ${bound} bytes`);
    }
    throw new ArchiveError('corrupt', undefined, `is not valid gzip: ${(error as Error).message}`);
  }
}

function isMeta(typeflag: string): boolean {
  return typeflag === 'x' || typeflag === 'g' || typeflag === 'L' || typeflag === 'K';
}

function applyMeta(overrides: Overrides, header: RawHeader, data: Buffer): Overrides {
  if (header.size > MAX_META_BYTES)
    throw new ArchiveError('unsupported', header.name, `has an extended header over ${MAX_META_BYTES} bytes`);
  switch (header.typeflag) {
    case 'x':
      return { ...overrides, ...parsePax(data, header.name) };
    case 'L':
      return { ...overrides, path: cString(data) };
    case 'K':
      return { ...overrides, linkpath: cString(data) };
    default:
      // Global headers would rename or resize every later entry; nothing legitimate needs that here.
      return overrides;
  }
}

function decodeHeader(block: Buffer, offset: number): RawHeader {
  const stored = readNumber(block, 148, 8, offset);
  const unsigned = block.reduce((sum, byte, i) => sum + (i >= 148 && i < 156 ? 0x20 : byte), 0);
  const signed = block.reduce((sum, byte, i) => sum + (i >= 148 && i < 156 ? 0x20 : (byte << 24) >> 24), 0);
  if (stored !== unsigned && stored !== signed) {
    throw new ArchiveError('corrupt', undefined, `is not a valid tar: bad header checksum at byte ${offset}`);
  }
  // Only POSIX ustar has the prefix field; GNU keeps timestamps in the same bytes.
  const isUstar = block.toString('latin1', 257, 263) === 'ustar\0';
  const prefix = isUstar ? cString(block.subarray(345, 500)) : '';
  const name = cString(block.subarray(0, 100));
  return {
    name: prefix ? `${prefix}/${name}` : name,
    mode: readNumber(block, 100, 8, offset) & 0o7777,
    size: readNumber(block, 124, 12, offset),
    typeflag: String.fromCharCode(block[156] ?? 0),
    linkName: cString(block.subarray(157, 257)),
  };
}

/** Reads an octal field, or a GNU base-256 one (high bit set) used for values octal cannot hold. */
function readNumber(block: Buffer, start: number, length: number, offset: number): number {
  const field = block.subarray(start, start + length);
  const first = field[0] ?? 0;
  let value = 0;
  if (first & 0x80) {
    if (first & 0x40) throw new ArchiveError('corrupt', undefined, `has a negative number in the header at byte ${offset}`);
    value = first & 0x3f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
  } else {
    const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
    if (!/^[0-7]*$/.test(text))
      throw new ArchiveError('corrupt', undefined, `is not a valid tar: bad number in the header at byte ${offset}`);
    value = text === '' ? 0 : parseInt(text, 8);
  }
  if (!Number.isSafeInteger(value))
    throw new ArchiveError('corrupt', undefined, `has an out-of-range number in the header at byte ${offset}`);
  return value;
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.toString('utf8', 0, end < 0 ? bytes.length : end);
}

/** Parses pax records, `<length> <key>=<value>\n`, keeping the keys that change what an entry is. */
function parsePax(data: Buffer, name: string): Overrides {
  const malformed = (): ArchiveError => new ArchiveError('corrupt', name, 'is a malformed pax header');
  let result: Overrides = {};
  for (let offset = 0; offset < data.length && data[offset] !== 0;) {
    const space = data.indexOf(0x20, offset);
    const lengthText = data.toString('latin1', offset, space < 0 ? offset : space);
    const length = Number(lengthText);
    if (!/^\d+$/.test(lengthText) || length < space - offset + 3 || data[offset + length - 1] !== 0x0a) throw malformed();
    const record = data.toString('utf8', space + 1, offset + length - 1);
    const equals = record.indexOf('=');
    if (equals < 0) throw malformed();
    const key = record.slice(0, equals);
    const value = record.slice(equals + 1);
    if (key === 'path') result = { ...result, path: value };
    if (key === 'linkpath') result = { ...result, linkpath: value };
    if (key === 'size') {
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw malformed();
      result = { ...result, size: Number(value) };
    }
    offset += length;
  }
  return result;
}

/** The normalised form of an archive path, `''` for the root, or undefined when it could leave the root. */
function containedPath(name: string): string | undefined {
  if (UNSAFE_NAME.test(name)) return undefined;
  const path = posix.normalize(name).replace(/\/+$/, '');
  if (path === '..' || path.startsWith('../')) return undefined;
  return path === '.' ? '' : path;
}

function* ancestors(path: string): Generator<string> {
  for (let slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) yield path.slice(0, slash);
}

/** Checks entries one by one, keeping what spans entries: limits, paths seen, and which of them are links. */
class Admission {
  readonly #limits: ArchiveLimits;
  readonly #seen = new Map<string, ArchiveEntryType>();
  #entries = 0;
  #bytes = 0;

  constructor(limits: ArchiveLimits) {
    this.#limits = limits;
  }

  /** Returns the validated entry, or undefined for an entry that is the root directory itself. */
  admit(name: string, header: RawHeader, linkName: string, size: number): ArchiveEntry | undefined {
    const type = entryType(name, header.typeflag);
    this.#count(name, type, size);
    const path = containedPath(name);
    if (path === undefined) throw new ArchiveError('path_escape', name, 'escapes the archive root');
    if (path === '') {
      if (type === 'directory') return undefined;
      throw new ArchiveError('path_escape', name, 'replaces the archive root');
    }
    if (size > 0 && type !== 'file') throw new ArchiveError('corrupt', name, `is a ${type} with ${size} bytes of content`);
    this.#checkPlace(name, path, type);
    const entry = { path, type, size, mode: header.mode };
    if (type === 'symlink') return { ...entry, linkTarget: this.#symlinkTarget(name, path, linkName) };
    if (type === 'hardlink') return { ...entry, linkTarget: this.#hardlinkTarget(name, linkName) };
    return entry;
  }

  #count(name: string, type: ArchiveEntryType, size: number): void {
    this.#entries += 1;
    if (this.#entries > this.#limits.maxEntries) {
      throw new ArchiveError('too_many_entries', name, `goes over the limit of ${this.#limits.maxEntries} entries`);
    }
    if (type === 'file') this.#bytes += size;
    if (this.#bytes > this.#limits.maxTotalBytes) {
      throw new ArchiveError('too_large', name, `brings the total size over the limit of ${this.#limits.maxTotalBytes} bytes`);
    }
  }

  /** Refuses duplicates, and entries below a symlink, which extraction would write through. */
  #checkPlace(name: string, path: string, type: ArchiveEntryType): void {
    const previous = this.#seen.get(path);
    if (previous && !(previous === 'directory' && type === 'directory')) {
      throw new ArchiveError('duplicate_entry', name, 'appears more than once in the archive');
    }
    for (const parent of ancestors(path)) {
      const parentType = this.#seen.get(parent);
      if (parentType === 'symlink') throw new ArchiveError('link_escape', name, `is inside the symlink "${parent}"`);
      if (parentType && parentType !== 'directory')
        throw new ArchiveError('corrupt', name, `is inside "${parent}", which is not a directory`);
      this.#seen.set(parent, 'directory');
    }
    this.#seen.set(path, type);
  }

  #symlinkTarget(name: string, path: string, target: string): string {
    if (target === '') throw new ArchiveError('corrupt', name, 'is a symlink without a target');
    if (UNSAFE_NAME.test(target) || containedPath(posix.join(posix.dirname(path), target)) === undefined) {
      throw new ArchiveError('link_escape', name, `is a symlink to ${JSON.stringify(target)}, outside the archive root`);
    }
    return target;
  }

  /** A hard link may only repeat an earlier file: linking to a symlink would move where its target resolves. */
  #hardlinkTarget(name: string, linkName: string): string {
    const target = containedPath(linkName);
    if (target === undefined) {
      throw new ArchiveError('link_escape', name, `is a hard link to ${JSON.stringify(linkName)}, outside the archive root`);
    }
    const targetType = this.#seen.get(target);
    if (targetType !== 'file' && targetType !== 'hardlink') {
      throw new ArchiveError(
        'link_escape',
        name,
        `is a hard link to ${JSON.stringify(linkName)}, which is not an earlier file in the archive`,
      );
    }
    return target;
  }
}

function entryType(name: string, typeflag: string): ArchiveEntryType {
  const special = SPECIAL_TYPES[typeflag];
  if (special) throw new ArchiveError('special_file', name, `is a ${special}, which templates may not contain`);
  const type = ENTRY_TYPES[typeflag];
  if (!type) throw new ArchiveError('unsupported', name, `has the unsupported tar entry type ${JSON.stringify(typeflag)}`);
  // Pre-POSIX tars mark directories only by a trailing slash.
  return type === 'file' && name.endsWith('/') ? 'directory' : type;
}
