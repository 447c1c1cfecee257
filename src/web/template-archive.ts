// A template version's archive in the browser: the tar the server stores, read into files and
// written back from them (the tar format is modern-tar's; the limits and what is kept are ours).
// Only what templates hold is kept: regular files (with their modes) and the directories they
// imply; links and devices are reported and left out.
import { packTar, unpackTar, type TarEntry } from 'modern-tar';

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

const encoder = new TextEncoder();

/** Reads a tar (gzip-compressed or not), refusing one over the size or file limits, or a damaged one. */
export async function readTemplateArchive(bytes: Uint8Array): Promise<TemplateArchive> {
  if (bytes.length > MAX_ARCHIVE_BYTES) throw tooLarge(bytes.length);
  const tar = bytes[0] === 0x1f && bytes[1] === 0x8b ? await gunzip(bytes) : bytes;
  let entries: Awaited<ReturnType<typeof unpackTar>>;
  try {
    // Strict: a header whose checksum does not match is damage, not a file.
    entries = await unpackTar(tar, { strict: true });
  } catch (error) {
    throw new ArchiveRefused(`The archive is damaged: ${error instanceof Error ? error.message : String(error)}`);
  }
  const files = new Map<string, TemplateFile>();
  const skipped: string[] = [];
  for (const { header, data } of entries) {
    const path = normalizePath(header.name);
    if (header.type === 'directory' || path === '') continue;
    if (header.type !== 'file') {
      skipped.push(path);
      continue;
    }
    files.set(path, { path, data: data ?? new Uint8Array(0), mode: (header.mode ?? 0o644) & 0o777 || 0o644 });
    if (files.size > MAX_ARCHIVE_FILES)
      throw new ArchiveRefused(
        `This version holds more than ${MAX_ARCHIVE_FILES} files, more than the dashboard opens. Use \`cove templates pull\` to work on it.`,
      );
  }
  return { files: [...files.values()].sort((a, b) => a.path.localeCompare(b.path)), skipped };
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

/** Writes files into a tar, with an entry for each directory they imply. */
export async function writeTemplateArchive(files: readonly TemplateFile[]): Promise<Uint8Array> {
  const entries: TarEntry[] = [];
  const directories = new Set<string>();
  // A fixed time, as the CLI's archives have: the same files give the same bytes, which the server stores once.
  const mtime = new Date(0);
  const owner = { uid: 0, gid: 0, uname: '', gname: '' };
  for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    const parts = file.path.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const directory = `${parts.slice(0, depth).join('/')}/`;
      if (directories.has(directory)) continue;
      directories.add(directory);
      entries.push({ header: { name: directory, type: 'directory', size: 0, mode: 0o755, mtime, ...owner } });
    }
    entries.push({ header: { name: file.path, type: 'file', size: file.data.length, mode: file.mode, mtime, ...owner }, body: file.data });
  }
  return packTar(entries);
}
