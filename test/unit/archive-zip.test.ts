import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { crc32, deflateRawSync } from 'node:zlib';
import {
  ArchiveError,
  createTar,
  inspectTar,
  readTar,
  tarToZip,
  writeTar,
  zipToTar,
  type ArchiveErrorReason,
} from '../../src/lib/archive/index.js';

const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const S_IFCHR = 0o020000;
const S_IFIFO = 0o010000;

interface RawZipEntry {
  readonly name: string;
  readonly data?: string | Buffer;
  readonly deflate?: boolean;
  /** Full st_mode (type and permission bits); omitted means an MS-DOS style entry. */
  readonly unixMode?: number;
  readonly flags?: number;
  readonly method?: number;
  /** Overrides of what the headers declare, to lie about an entry. */
  readonly size?: number;
  readonly crc?: number;
}

/** Local headers, central directory and end record, written field by field. */
function rawZip(entries: readonly RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? '');
    const body = entry.deflate ? deflateRawSync(data) : data;
    const name = Buffer.from(entry.name);
    const method = entry.method ?? (entry.deflate ? 8 : 0);
    const crc = entry.crc ?? crc32(data);
    const size = entry.size ?? data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(entry.flags ?? 0, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.unixMode === undefined ? 20 : (3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(entry.flags ?? 0, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.unixMode ?? 0) * 0x10000) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Names and Unix modes from a zip's central directory, to check what tarToZip wrote. */
function listZip(zip: Buffer): { name: string; mode: number }[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const entries = [];
  let offset = zip.readUInt32LE(end + 16);
  for (let i = 0; i < zip.readUInt16LE(end + 10); i += 1) {
    const nameLength = zip.readUInt16LE(offset + 28);
    entries.push({ name: zip.toString('utf8', offset + 46, offset + 46 + nameLength), mode: zip.readUInt32LE(offset + 38) >>> 16 });
    offset += 46 + nameLength + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
  }
  return entries;
}

async function assertRefused(promise: Promise<unknown>, reason: ArchiveErrorReason, entry?: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ArchiveError, `expected an ArchiveError, got ${String(error)}`);
    assert.equal(error.reason, reason, error.message);
    assert.equal(error.entry, entry, error.message);
    if (entry !== undefined) assert.ok(error.message.includes(JSON.stringify(entry)), error.message);
    return true;
  });
}

async function contents(tar: Buffer): Promise<Record<string, [string, number, string]>> {
  const members = await readTar(tar);
  return Object.fromEntries(members.map(({ entry, data }) => [entry.path, [entry.type, entry.mode, entry.linkTarget ?? data.toString()]]));
}

describe('zipToTar', () => {
  const sample = (): Buffer =>
    rawZip([
      { name: 'src/', unixMode: S_IFDIR | 0o755 },
      { name: 'src/main.tf', data: 'resource "null" "x" {}\n'.repeat(20), deflate: true, unixMode: S_IFREG | 0o644 },
      { name: 'src/run.sh', data: '#!/bin/sh\necho hi\n', unixMode: S_IFREG | 0o755 },
      { name: 'src/latest', data: 'main.tf', unixMode: S_IFLNK | 0o777 },
      { name: 'docs/readme.md', data: '# hi\n' },
    ]);

  it('converts directories, files, modes and Unix symlinks', async () => {
    assert.deepEqual(await contents(await zipToTar(sample())), {
      src: ['directory', 0o755, ''],
      'src/main.tf': ['file', 0o644, 'resource "null" "x" {}\n'.repeat(20)],
      'src/run.sh': ['file', 0o755, '#!/bin/sh\necho hi\n'],
      'src/latest': ['symlink', 0o777, 'main.tf'],
      'docs/readme.md': ['file', 0o644, '# hi\n'],
    });
  });

  it('round-trips zip -> tar -> zip -> tar, keeping paths, contents and modes', async () => {
    const tar = await zipToTar(sample());
    const zip = await tarToZip(tar);
    assert.deepEqual(listZip(zip), [
      { name: 'src/', mode: S_IFDIR | 0o755 },
      { name: 'src/main.tf', mode: S_IFREG | 0o644 },
      { name: 'src/run.sh', mode: S_IFREG | 0o755 },
      { name: 'src/latest', mode: S_IFLNK | 0o777 },
      { name: 'docs/readme.md', mode: S_IFREG | 0o644 },
    ]);
    assert.deepEqual(await contents(await zipToTar(zip)), await contents(tar));
  });

  it('round-trips tar -> zip -> tar, keeping paths, contents and modes', async () => {
    const tar = await createTar({ 'a/': '', 'a/b/c.txt': 'deep', 'tool.sh': { content: '#!/bin/sh\n'.repeat(100), mode: 0o750 } });
    assert.deepEqual(await contents(await zipToTar(await tarToZip(tar))), await contents(tar));
  });

  it('turns a hard link into a copy, since zip has none', async () => {
    const tar = writeTar([
      { entry: { path: 'tool', type: 'file', size: 3, mode: 0o755 }, data: Buffer.from('bin') },
      { entry: { path: 'alias', type: 'hardlink', size: 0, mode: 0o755, linkTarget: 'tool' }, data: Buffer.alloc(0) },
    ]);
    assert.deepEqual(await contents(await zipToTar(await tarToZip(tar))), { tool: ['file', 0o755, 'bin'], alias: ['file', 0o755, 'bin'] });
  });

  it('refuses entries that escape the root', async () => {
    await assertRefused(zipToTar(rawZip([{ name: '../evil.sh', data: 'x' }])), 'path_escape', '../evil.sh');
    await assertRefused(zipToTar(rawZip([{ name: '/etc/passwd', data: 'x' }])), 'path_escape', '/etc/passwd');
    await assertRefused(zipToTar(rawZip([{ name: '..\\evil.bat', data: 'x' }])), 'path_escape', '..\\evil.bat');
  });

  it('refuses symlinks that leave the root', async () => {
    await assertRefused(zipToTar(rawZip([{ name: 'etc', data: '/etc', unixMode: S_IFLNK | 0o777 }])), 'link_escape', 'etc');
    await assertRefused(zipToTar(rawZip([{ name: 'a', data: '../../x', unixMode: S_IFLNK | 0o777 }])), 'link_escape', 'a');
  });

  it('refuses device and FIFO entries', async () => {
    await assertRefused(zipToTar(rawZip([{ name: 'tty', unixMode: S_IFCHR | 0o600 }])), 'special_file', 'tty');
    await assertRefused(zipToTar(rawZip([{ name: 'pipe', unixMode: S_IFIFO | 0o600 }])), 'special_file', 'pipe');
  });

  it('refuses too many entries and too many bytes from the central directory alone', async () => {
    const files = ['a', 'b', 'c'].map((name) => ({ name, data: Buffer.alloc(600, name) }));
    await assertRefused(zipToTar(rawZip(files), { maxEntries: 2 }), 'too_many_entries', 'c');
    await assertRefused(zipToTar(rawZip(files), { maxTotalBytes: 1000 }), 'too_large', 'b');
    // A declared size is trusted only as a bound, so a bomb cannot hide behind a small one.
    await assertRefused(zipToTar(rawZip([{ name: 'huge', size: 2 ** 31 }]), { maxTotalBytes: 2 ** 30 }), 'too_large', 'huge');
  });

  it('refuses an extreme compression ratio before inflating', async () => {
    const bomb = rawZip([{ name: 'zeros.bin', data: Buffer.alloc(1024 * 1024), deflate: true }]);
    await assertRefused(zipToTar(bomb), 'compression_ratio', 'zeros.bin');
    assert.equal((await inspectTar(await zipToTar(bomb, { maxCompressionRatio: 2000 })))[0]?.size, 1024 * 1024);
  });

  it('stops inflating at the declared size when a header lies', async () => {
    const liar = rawZip([{ name: 'liar.txt', data: 'a'.repeat(5000), deflate: true, size: 100 }]);
    await assertRefused(zipToTar(liar, { maxCompressionRatio: 1000 }), 'corrupt', 'liar.txt');
  });

  it('refuses a CRC mismatch', async () => {
    await assertRefused(zipToTar(rawZip([{ name: 'a.txt', data: 'hello', crc: 1234 }])), 'corrupt', 'a.txt');
  });

  it('refuses random bytes, JSON and truncated zips', async () => {
    await assertRefused(zipToTar(randomBytes(4096)), 'corrupt');
    await assertRefused(zipToTar(Buffer.from('{"not":"a zip"}')), 'corrupt');
    await assertRefused(zipToTar(Buffer.alloc(0)), 'corrupt');
    const zip = sample();
    await assertRefused(zipToTar(zip.subarray(0, zip.length - 10)), 'corrupt');
    await assertRefused(zipToTar(Buffer.concat([zip.subarray(0, 40), zip.subarray(zip.length - 22)])), 'corrupt');
  });

  it('refuses encryption, unknown methods and zip64', async () => {
    await assertRefused(zipToTar(rawZip([{ name: 'secret', data: 'x', flags: 1 }])), 'unsupported', 'secret');
    await assertRefused(zipToTar(rawZip([{ name: 'bz', data: 'x', method: 12 }])), 'unsupported', 'bz');
    await assertRefused(zipToTar(rawZip([{ name: 'big', data: 'x', size: 0xffffffff }])), 'unsupported', 'big');
  });
});

describe('tarToZip', () => {
  it('refuses a tar that inspectTar refuses', async () => {
    const tar = await createTar({ 'a.txt': 'a', 'b.txt': 'b' });
    await assertRefused(tarToZip(tar, { maxEntries: 1 }), 'too_many_entries', 'b.txt');
    await assertRefused(tarToZip(randomBytes(2048)), 'corrupt');
  });
});
