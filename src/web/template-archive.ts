// A template version's archive in the browser: the tar the server stores, read into files and
// written back from them. Only what templates hold is kept: regular files (with their modes) and
// the directories they imply; links and devices are reported and left out.

/** One file of a template: its path inside the archive, its bytes and its permission bits. */
export interface TemplateFile {
  readonly path: string;
  readonly data: Uint8Array;
  readonly mode: number;
}

/** The files read from an archive, and the entries that are not files and were left out. */
export interface TemplateArchive {
  readonly files: TemplateFile[];
  readonly skipped: string[];
}

/** The largest archive the dashboard opens: larger templates are edited with the CLI. */
export const MAX_ARCHIVE_BYTES = 10 * 1024 * 1024;
/** The most files the dashboard opens in one archive. */
export const MAX_ARCHIVE_FILES = 500;

/** Why an archive cannot be opened, in words for the person who tried. */
export class ArchiveRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveRefused';
  }
}

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads a tar (gzip-compressed or not), refusing one over the size or file limits. */
export async function readTemplateArchive(bytes: Uint8Array): Promise<TemplateArchive> {
  if (bytes.length > MAX_ARCHIVE_BYTES) throw tooLarge(bytes.length);
  const tar = bytes[0] === 0x1f && bytes[1] === 0x8b ? await gunzip(bytes) : bytes;
  return readTar(tar);
}

function tooLarge(size: number): ArchiveRefused {
  return new ArchiveRefused(
    `This version's files take ${(size / 1024 / 1024).toFixed(1)} MiB, more than the ${MAX_ARCHIVE_BYTES / 1024 / 1024} MiB the dashboard opens. Use \`cove templates pull\` to work on it.`,
  );
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip'));
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    // Stops a small archive that expands to a huge one before it fills the tab's memory.
    if (total > MAX_ARCHIVE_BYTES) {
      await reader.cancel();
      throw tooLarge(total);
    }
    chunks.push(value);
  }
  const joined = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return joined;
}

function readTar(tar: Uint8Array): TemplateArchive {
  const files = new Map<string, TemplateFile>();
  const skipped: string[] = [];
  let longName: string | undefined;
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    if (!checksumMatches(header)) throw new ArchiveRefused('The archive is damaged: a header checksum does not match.');
    const size = readNumber(header.subarray(124, 136));
    const type = String.fromCharCode(header[156] ?? 0);
    const start = offset + BLOCK;
    if (start + size > tar.length) throw new ArchiveRefused('The archive is damaged: it ends inside a file.');
    const body = tar.subarray(start, start + size);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;

    if (type === 'x') {
      longName = paxPath(body) ?? longName;
      continue;
    }
    if (type === 'L') {
      longName = readString(body);
      continue;
    }
    if (type === 'g') continue;
    const prefix = readString(header.subarray(345, 500));
    const ownName = readString(header.subarray(0, 100));
    const path = normalizePath(longName ?? (prefix ? `${prefix}/${ownName}` : ownName));
    longName = undefined;
    if (type === '5' || path === '') continue;
    if (type !== '0' && type !== '\0' && type !== '7') {
      skipped.push(path);
      continue;
    }
    files.set(path, { path, data: body.slice(), mode: readNumber(header.subarray(100, 108)) & 0o777 || 0o644 });
    if (files.size > MAX_ARCHIVE_FILES)
      throw new ArchiveRefused(
        `This version holds more than ${MAX_ARCHIVE_FILES} files, more than the dashboard opens. Use \`cove templates pull\` to work on it.`,
      );
  }
  return { files: [...files.values()].sort((a, b) => a.path.localeCompare(b.path)), skipped };
}

function checksumMatches(header: Uint8Array): boolean {
  const stored = readNumber(header.subarray(148, 156));
  let sum = 0;
  for (let index = 0; index < BLOCK; index++) sum += index >= 148 && index < 156 ? 0x20 : header[index]!;
  return sum === stored;
}

/** A numeric header field: octal text, or base-256 when its first byte has the high bit set. */
function readNumber(field: Uint8Array): number {
  if ((field[0] ?? 0) & 0x80) {
    let value = (field[0]! & 0x7f) * 1;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    return value;
  }
  const text = readString(field).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function readString(field: Uint8Array): string {
  const end = field.indexOf(0);
  return decoder.decode(end < 0 ? field : field.subarray(0, end));
}

/** The `path` record of a PAX extended header (`<length> path=<value>\n` records). */
function paxPath(body: Uint8Array): string | undefined {
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    if (space < 0) return undefined;
    const length = parseInt(decoder.decode(body.subarray(at, space)), 10);
    if (!(length > 0)) return undefined;
    const record = decoder.decode(body.subarray(space + 1, at + length - 1));
    if (record.startsWith('path=')) return record.slice('path='.length);
    at += length;
  }
  return undefined;
}

/** A path as the editor names it: relative, with `/` between parts and no empty or `.` parts. */
export function normalizePath(path: string): string {
  return path
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

/** Why a path typed for a new or renamed file cannot be used, or undefined when it can. */
export function pathProblem(path: string, taken: readonly string[]): string | undefined {
  const normalized = normalizePath(path.trim());
  if (normalized === '') return 'Give the file a name.';
  if (path.trim().startsWith('/')) return 'The path is relative to the template: it cannot start with "/".';
  if (normalized.split('/').includes('..')) return 'The path cannot contain "..".';
  if (encoder.encode(normalized).length > 255) return 'The path is too long.';
  if (taken.includes(normalized)) return `There is already a file named ${normalized}.`;
  if (taken.some((other) => other.startsWith(`${normalized}/`))) return `${normalized} is a directory.`;
  if (taken.some((other) => normalized.startsWith(`${other}/`))) return 'A file cannot be inside another file.';
  return undefined;
}

/** A file's contents as text, or undefined when they are not UTF-8 text (then they are shown as binary). */
export function textOf(data: Uint8Array): string | undefined {
  if (data.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return undefined;
  }
}

/** Encodes text as a file's bytes. */
export function bytesOf(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Writes files into a POSIX tar, with an entry for each directory they imply. */
export function writeTemplateArchive(files: readonly TemplateFile[]): Uint8Array {
  const blocks: Uint8Array[] = [];
  const directories = new Set<string>();
  // A fixed time, as the CLI's archives have: the same files give the same bytes, which the server stores once.
  const mtime = 0;
  for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    const parts = file.path.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const directory = `${parts.slice(0, depth).join('/')}/`;
      if (directories.has(directory)) continue;
      directories.add(directory);
      blocks.push(...entry(directory, '5', 0o755, new Uint8Array(0), mtime));
    }
    blocks.push(...entry(file.path, '0', file.mode, file.data, mtime));
  }
  blocks.push(new Uint8Array(BLOCK * 2));
  const total = blocks.reduce((sum, block) => sum + block.length, 0);
  const tar = new Uint8Array(total);
  let at = 0;
  for (const block of blocks) {
    tar.set(block, at);
    at += block.length;
  }
  return tar;
}

/** An entry's blocks: a PAX header first when the path fits no ustar field, then the header and the padded data. */
function entry(path: string, type: string, mode: number, data: Uint8Array, mtime: number): Uint8Array[] {
  const blocks: Uint8Array[] = [];
  let name = path;
  let prefix = '';
  if (encoder.encode(path).length > 100) {
    const split = splitForUstar(path);
    if (split) [prefix, name] = split;
    else {
      const record = paxRecord('path', path);
      blocks.push(header('PaxHeader', 'x', 0o644, record.length, mtime, ''), padded(record));
      name = path.slice(-100);
      while (encoder.encode(name).length > 100) name = name.slice(1);
    }
  }
  blocks.push(header(name, type, mode, data.length, mtime, prefix));
  if (data.length > 0) blocks.push(padded(data));
  return blocks;
}

/** Splits a long path at a `/` into a ustar prefix (up to 155 bytes) and name (up to 100). */
function splitForUstar(path: string): [string, string] | undefined {
  for (let slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
    const prefix = path.slice(0, slash);
    const name = path.slice(slash + 1);
    if (encoder.encode(prefix).length <= 155 && encoder.encode(name).length <= 100 && name !== '') return [prefix, name];
  }
  return undefined;
}

function paxRecord(key: string, value: string): Uint8Array {
  const body = ` ${key}=${value}\n`;
  const bodyLength = encoder.encode(body).length;
  // The length counts its own digits.
  let length = bodyLength + String(bodyLength).length;
  if (String(length).length !== String(bodyLength).length) length = bodyLength + String(length).length;
  return encoder.encode(`${length}${body}`);
}

function padded(data: Uint8Array): Uint8Array {
  const block = new Uint8Array(Math.ceil(data.length / BLOCK) * BLOCK);
  block.set(data);
  return block;
}

function header(name: string, type: string, mode: number, size: number, mtime: number, prefix: string): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const put = (text: string, at: number, length: number) => block.set(encoder.encode(text).subarray(0, length), at);
  const octal = (value: number, length: number) => `${value.toString(8).padStart(length - 1, '0')}\0`;
  put(name, 0, 100);
  put(octal(mode, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(mtime, 12), 136, 12);
  put('        ', 148, 8);
  put(type, 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  put(prefix, 345, 155);
  const sum = block.reduce((total, byte) => total + byte, 0);
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return block;
}
