import { posix } from 'node:path';
import { createGunzip } from 'node:zlib';
import { Header } from 'tar';
import { ArchiveError } from './archive-error.js';
import { defaultArchiveLimits, type ArchiveLimits } from './archive-limits.js';

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
/**
 * A gzip'd tar may always grow to this much, whatever its ratio: tar headers and padding are
 * mostly zeros, so a small legitimate archive can compress a hundredfold.
 */
const RATIO_FREE_BYTES = 1024 * 1024;
/** Absolute paths, Windows drive letters, backslashes and NULs; any of them can leave the root somewhere. */
const UNSAFE_NAME = /^\/|^[a-zA-Z]:|[\\\0]/;

/** tar's names of the entry types (its Header decodes the typeflag). */
const ENTRY_TYPES: Readonly<Record<string, ArchiveEntryType>> = {
  File: 'file',
  OldFile: 'file',
  ContiguousFile: 'file',
  Link: 'hardlink',
  SymbolicLink: 'symlink',
  Directory: 'directory',
};
const SPECIAL_TYPES: Readonly<Record<string, string>> = {
  CharacterDevice: 'character device',
  BlockDevice: 'block device',
  FIFO: 'FIFO',
};
/** Entries that describe the next one: pax (`x`, `g`) and GNU long names (`L`, `K`). */
const META_TYPES = new Set(['ExtendedHeader', 'GlobalExtendedHeader', 'NextFileHasLongPath', 'NextFileHasLongLinkpath']);

/** What the header block says, before pax and long-name overrides. */
interface RawHeader {
  readonly name: string;
  readonly mode: number;
  readonly size: number;
  /** tar's name for the type, e.g. `File`, `SymbolicLink`, `ExtendedHeader`. */
  readonly type: string;
  /** The typeflag byte as written, for messages. */
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
 * Like inspectTar, but also returns each entry's content (views into the buffer for a plain tar).
 * Understands ustar, pax (`x`) and GNU long names (`L`, `K`); global pax headers are ignored.
 *
 * A gzip'd tar is decompressed as a stream, and every limit is applied as the headers arrive: an
 * entry whose declared size would take the archive past a limit is refused before its content is
 * inflated, so a compression bomb costs no more memory than the limits allow.
 */
export async function readTar(tar: Buffer, limits: Partial<ArchiveLimits> = {}): Promise<readonly TarMember[]> {
  const resolved = { ...defaultArchiveLimits, ...limits };
  if (tar[0] === 0x1f && tar[1] === 0x8b) {
    const reader = new TarReader(resolved, streamBound(tar.length, resolved));
    await gunzipInto(tar, reader);
    return reader.end();
  }
  const reader = new TarReader(resolved, undefined);
  reader.write(tar);
  return reader.end();
}

/** How far a gzip'd tar of `compressedBytes` may decompress, and which limit says so. */
interface StreamBound {
  readonly bytes: number;
  readonly error: () => ArchiveError;
}

function streamBound(compressedBytes: number, limits: ArchiveLimits): StreamBound {
  // Headers and padding come on top of the file bytes: allow about three blocks per entry.
  const bySize = limits.maxTotalBytes + (limits.maxEntries + 2) * 3 * BLOCK;
  const byRatio = Math.max(RATIO_FREE_BYTES, limits.maxCompressionRatio * compressedBytes);
  if (bySize <= byRatio) {
    const problem = `decompresses to more than ${bySize} bytes, over the size limit of ${limits.maxTotalBytes} bytes and its headers`;
    return { bytes: bySize, error: () => new ArchiveError('too_large', undefined, problem) };
  }
  return {
    bytes: byRatio,
    error: () =>
      new ArchiveError(
        'compression_ratio',
        undefined,
        `decompresses to more than ${byRatio} bytes, over the ratio limit of ${limits.maxCompressionRatio} for its ${compressedBytes} compressed bytes`,
      ),
  };
}

/** Feeds the decompressed stream to `reader` chunk by chunk; stops at its end marker or its first refusal. */
function gunzipInto(gzip: Buffer, reader: TarReader): Promise<void> {
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip();
    const stop = (error?: unknown): void => {
      gunzip.removeAllListeners('data');
      gunzip.destroy();
      if (error) reject(error);
      else resolve();
    };
    gunzip.on('data', (chunk: Buffer) => {
      try {
        reader.write(chunk);
        // Whatever follows the end marker is never read: no reason to inflate it.
        if (reader.finished) stop();
      } catch (error) {
        stop(error);
      }
    });
    gunzip.on('end', () => resolve());
    gunzip.on('error', (error) => stop(new ArchiveError('corrupt', undefined, `is not valid gzip: ${error.message}`)));
    gunzip.end(gzip);
  });
}

/** Where the reader is: between entries, or inside the content of one. */
type ReadState =
  | { readonly kind: 'header' }
  | {
      readonly kind: 'body';
      readonly header: RawHeader;
      readonly name: string;
      /** The admitted entry, or undefined for a meta entry (or the root directory). */
      readonly entry: ArchiveEntry | undefined;
      readonly meta: boolean;
      readonly parts: Buffer[];
      /** Content bytes still to come, then padding to the block boundary. */
      dataLeft: number;
      paddingLeft: number;
    };

/**
 * Walks the 512-byte blocks of a tar as they arrive, decoding each header with tar's Header and
 * checking every entry as soon as its header is read.
 */
class TarReader {
  readonly #admission: Admission;
  readonly #bound: StreamBound | undefined;
  readonly #members: TarMember[] = [];
  #pending: Buffer = Buffer.alloc(0);
  #state: ReadState = { kind: 'header' };
  #overrides: Overrides = {};
  /** Bytes of the tar read so far, including those the current header has announced. */
  #committed = 0;
  #offset = 0;
  finished = false;

  constructor(limits: ArchiveLimits, bound: StreamBound | undefined) {
    this.#admission = new Admission(limits);
    this.#bound = bound;
  }

  write(chunk: Buffer): void {
    if (this.finished) return;
    let input = this.#pending.length > 0 ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = Buffer.alloc(0);
    while (!this.finished && input.length > 0) {
      if (this.#state.kind === 'header') {
        if (input.length < BLOCK) break;
        this.#header(input.subarray(0, BLOCK));
        input = input.subarray(BLOCK);
        this.#offset += BLOCK;
        continue;
      }
      const body = this.#state;
      const data = input.subarray(0, body.dataLeft);
      if (data.length > 0) {
        body.parts.push(data);
        body.dataLeft -= data.length;
        input = input.subarray(data.length);
      }
      const padding = Math.min(body.paddingLeft, input.length);
      body.paddingLeft -= padding;
      input = input.subarray(padding);
      this.#offset += data.length + padding;
      if (body.dataLeft === 0 && body.paddingLeft === 0) this.#finishEntry(body);
    }
    if (!this.finished) this.#pending = input;
  }

  /** The members, once the whole tar has been written. */
  end(): TarMember[] {
    if (this.#state.kind === 'body') {
      if (this.#state.dataLeft > 0) throw new ArchiveError('corrupt', this.#state.name, 'is truncated');
      this.#finishEntry(this.#state);
    }
    if (!this.finished) throw new ArchiveError('corrupt', undefined, 'is truncated or not a tar: no end-of-archive marker');
    return this.#members;
  }

  #header(block: Buffer): void {
    // Tools disagree on one or two zero blocks at the end; the first is enough.
    if (block.every((byte) => byte === 0)) {
      this.finished = true;
      return;
    }
    const overrides = this.#overrides;
    const header = decodeHeader(block, this.#offset, overrides);
    const meta = META_TYPES.has(header.type);
    const dataSize = header.type === 'Directory' ? 0 : meta ? header.size : (overrides.size ?? header.size);
    this.#commit(BLOCK + Math.ceil(dataSize / BLOCK) * BLOCK);
    const name = meta ? header.name : (overrides.path ?? header.name);
    let entry: ArchiveEntry | undefined;
    if (meta) {
      if (dataSize > MAX_META_BYTES)
        throw new ArchiveError('unsupported', header.name, `has an extended header over ${MAX_META_BYTES} bytes`);
    } else {
      entry = this.#admission.admit(name, header, overrides.linkpath ?? header.linkName, dataSize);
      this.#overrides = {};
    }
    const paddingLeft = Math.ceil(dataSize / BLOCK) * BLOCK - dataSize;
    this.#state = { kind: 'body', header, name, entry, meta, parts: [], dataLeft: dataSize, paddingLeft };
    if (dataSize === 0) this.#finishEntry(this.#state);
  }

  #finishEntry(body: Extract<ReadState, { kind: 'body' }>): void {
    this.#state = { kind: 'header' };
    const data = body.parts.length === 1 ? (body.parts[0] as Buffer) : Buffer.concat(body.parts);
    if (body.meta) {
      this.#overrides = applyMeta(this.#overrides, body.header, data);
      return;
    }
    if (body.entry) this.#members.push({ entry: body.entry, data: body.entry.type === 'file' ? data : Buffer.alloc(0) });
  }

  /** Counts bytes a header announces against the stream's bound, before they are inflated. */
  #commit(bytes: number): void {
    this.#committed += bytes;
    if (this.#bound && this.#committed > this.#bound.bytes) throw this.#bound.error();
  }
}

function applyMeta(overrides: Overrides, header: RawHeader, data: Buffer): Overrides {
  switch (header.type) {
    case 'ExtendedHeader':
      return { ...overrides, ...parsePax(data, header.name) };
    case 'NextFileHasLongPath':
      return { ...overrides, path: cString(data) };
    case 'NextFileHasLongLinkpath':
      return { ...overrides, linkpath: cString(data) };
    default:
      // Global headers would rename or resize every later entry; nothing legitimate needs that here.
      return overrides;
  }
}

/**
 * tar's Header decodes the block (checksum, octal and base-256 numbers, the ustar prefix), with the
 * extended header before it applied as other tar readers apply it: a file whose own name field ends
 * in `/` (a writer's cut of a long path) is the file its extended path names, not a directory whose
 * data would then be read as headers.
 */
function decodeHeader(block: Buffer, offset: number, extended: Overrides): RawHeader {
  let header: Header;
  try {
    header = new Header(block, 0, { ...extended });
  } catch {
    throw new ArchiveError('corrupt', undefined, `is not a valid tar: unreadable header at byte ${offset}`);
  }
  if (!header.cksumValid) throw new ArchiveError('corrupt', undefined, `is not a valid tar: bad header checksum at byte ${offset}`);
  const { size, mode } = header;
  if (size === undefined || !Number.isSafeInteger(size) || size < 0 || (mode !== undefined && !Number.isSafeInteger(mode))) {
    throw new ArchiveError('corrupt', undefined, `is not a valid tar: bad number in the header at byte ${offset}`);
  }
  return {
    name: header.path ?? '',
    mode: (mode ?? 0) & 0o7777,
    size,
    type: header.type,
    typeflag: String.fromCharCode(block[156] ?? 0),
    linkName: header.linkpath ?? '',
  };
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
    const type = entryType(name, header);
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

function entryType(name: string, header: RawHeader): ArchiveEntryType {
  const special = SPECIAL_TYPES[header.type];
  if (special) throw new ArchiveError('special_file', name, `is a ${special}, which templates may not contain`);
  const type = ENTRY_TYPES[header.type];
  if (!type) throw new ArchiveError('unsupported', name, `has the unsupported tar entry type ${JSON.stringify(header.typeflag)}`);
  // Pre-POSIX tars mark directories only by a trailing slash.
  return type === 'file' && name.endsWith('/') ? 'directory' : type;
}
