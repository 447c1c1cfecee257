import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createGzip, gzipSync } from 'node:zlib';
import { Parser, create as createWithTarPackage } from 'tar';
import { ArchiveError, createTar, inspectTar, readTar, type ArchiveErrorReason } from '../../src/lib/archive/index.js';

interface RawEntry {
  readonly name: string;
  /** Tar typeflag: '0' file, '1' hard link, '2' symlink, '3' char device, '5' directory, 'x' pax, 'L' GNU long name... */
  readonly type?: string;
  readonly content?: string | Buffer;
  readonly mode?: number;
  readonly linkName?: string;
  /** Declared size when it should differ from the content's. */
  readonly size?: number;
}

function octal(block: Buffer, offset: number, length: number, value: number): void {
  block.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'latin1');
}

/** One ustar header block, written byte by byte so tests can build archives no library would. */
function tarHeader(entry: RawEntry): Buffer {
  const block = Buffer.alloc(512);
  block.write(entry.name, 0, 100, 'utf8');
  octal(block, 100, 8, entry.mode ?? 0o644);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, entry.size ?? Buffer.byteLength(entry.content ?? ''));
  octal(block, 136, 12, 0);
  block.write(entry.type ?? '0', 156, 1, 'latin1');
  block.write(entry.linkName ?? '', 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 8, 'latin1');
  block.fill(0x20, 148, 156);
  const sum = block.reduce((total, byte) => total + byte, 0);
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return block;
}

function rawTar(entries: readonly RawEntry[], { end = true } = {}): Buffer {
  const parts = entries.flatMap((entry) => {
    const content = Buffer.from(entry.content ?? '');
    return [tarHeader(entry), content, Buffer.alloc((512 - (content.length % 512)) % 512)];
  });
  return Buffer.concat([...parts, Buffer.alloc(end ? 1024 : 0)]);
}

function paxRecord(key: string, value: string): string {
  // The length counts bytes, itself included.
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (Buffer.byteLength(`${length}${body}`) !== length) length += 1;
  return `${length}${body}`;
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

describe('inspectTar: valid archives', () => {
  it('lists nested directories and keeps an executable mode', async () => {
    const tar = rawTar([
      { name: './', type: '5', mode: 0o755 },
      { name: './src/', type: '5', mode: 0o755 },
      { name: './src/lib/', type: '5', mode: 0o750 },
      { name: './src/lib/main.tf', content: 'resource "x" "y" {}\n' },
      { name: './bin/run.sh', content: '#!/bin/sh\necho hi\n', mode: 0o755 },
      { name: 'src/lib/../link', type: '2', linkName: 'lib/main.tf', mode: 0o777 },
      { name: 'same', type: '1', linkName: './src/lib/main.tf' },
    ]);
    assert.deepEqual(await inspectTar(tar), [
      { path: 'src', type: 'directory', size: 0, mode: 0o755 },
      { path: 'src/lib', type: 'directory', size: 0, mode: 0o750 },
      { path: 'src/lib/main.tf', type: 'file', size: 20, mode: 0o644 },
      { path: 'bin/run.sh', type: 'file', size: 18, mode: 0o755 },
      { path: 'src/link', type: 'symlink', size: 0, mode: 0o777, linkTarget: 'lib/main.tf' },
      { path: 'same', type: 'hardlink', size: 0, mode: 0o644, linkTarget: 'src/lib/main.tf' },
    ]);
  });

  it('reads GNU long names and pax paths and sizes', async () => {
    const longName = `${'d'.repeat(120)}/${'f'.repeat(120)}.txt`;
    const pax = paxRecord('path', 'pax/ünïcode.txt') + paxRecord('size', '3');
    const tar = rawTar([
      { name: '././@LongLink', type: 'L', content: `${longName}\0` },
      { name: 'truncated', content: 'long' },
      { name: 'PaxHeader/x', type: 'x', content: pax },
      { name: 'ignored-name', content: 'abc', size: 999 },
    ]);
    const entries = await inspectTar(tar);
    assert.deepEqual(
      entries.map((entry) => [entry.path, entry.size]),
      [
        [longName, 4],
        ['pax/ünïcode.txt', 3],
      ],
    );
  });

  it('reads a file whose own name field ends in "/" by its pax path, as GNU tar does, not as a directory', async () => {
    // A writer that cuts a long path to 100 bytes may cut it after a slash. Read as a directory,
    // the file's data would be taken for the next header: what this server saw and what tar
    // extracts would differ.
    const path = `${'deep/'.repeat(30)}file.tf`;
    const smuggled = tarHeader({ name: 'smuggled.sh', content: 'echo hi' });
    const content = Buffer.concat([smuggled, Buffer.from('echo hi'.padEnd(512, '\0'))]).toString('latin1');
    const tar = rawTar([
      { name: 'PaxHeader/long', type: 'x', content: paxRecord('path', path) },
      { name: path.slice(0, 100), content },
    ]);
    assert.ok(path.slice(0, 100).endsWith('/'), 'the cut name ends in a slash');
    const members = await readTar(tar);
    assert.deepEqual(
      members.map((member) => [member.entry.path, member.entry.type, member.data.length]),
      [[path, 'file', 1024]],
    );
    const listed = spawnSync('tar', ['-t'], { input: tar, encoding: 'utf8' });
    assert.equal(listed.stdout, `${path}\n`, 'GNU tar reads the same single file');
  });

  it('reads archives written by the tar package, gzipped or not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'archive-inspect-'));
    try {
      const deep = join(dir, 'src', 'a'.repeat(90), 'b'.repeat(90));
      mkdirSync(deep, { recursive: true });
      writeFileSync(join(deep, `${'c'.repeat(90)}.sh`), '#!/bin/sh\n', { mode: 0o755 });
      createWithTarPackage({ sync: true, file: join(dir, 'out.tar'), cwd: join(dir, 'src'), portable: true }, ['.']);
      createWithTarPackage({ sync: true, gzip: true, file: join(dir, 'out.tgz'), cwd: join(dir, 'src'), portable: true }, ['.']);
      for (const file of ['out.tar', 'out.tgz']) {
        const entries = await inspectTar(readFileSync(join(dir, file)));
        const script = entries.find((entry) => entry.type === 'file');
        assert.equal(script?.path, `${'a'.repeat(90)}/${'b'.repeat(90)}/${'c'.repeat(90)}.sh`);
        assert.equal(script?.mode, 0o755);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes archives with createTar that the tar package reads back', async () => {
    const longPath = `${'x/'.repeat(80)}file.txt`;
    const tar = await createTar({ 'bin/': '', 'bin/run.sh': { content: '#!/bin/sh\n', mode: 0o755 }, [longPath]: 'deep', 'ü.txt': 'u' });
    const seen: [string, number | undefined][] = [];
    await new Promise<void>((resolve, reject) => {
      const parser = new Parser({ strict: true, onReadEntry: (entry) => (seen.push([entry.path, entry.mode]), entry.resume()) });
      parser.on('error', reject);
      parser.end(tar, resolve);
    });
    assert.deepEqual(seen, [
      ['bin/', 0o755],
      ['bin/run.sh', 0o755],
      [longPath, 0o644],
      ['ü.txt', 0o644],
    ]);
    assert.deepEqual(
      (await inspectTar(tar)).map((entry) => entry.path),
      ['bin', 'bin/run.sh', longPath, 'ü.txt'],
    );
  });

  it('refuses unsafe paths in createTar', async () => {
    await assertRefused(createTar({ '../up.txt': 'x' }), 'path_escape', '../up.txt');
  });
});

describe('inspectTar: escaping paths', () => {
  it('refuses ../ escapes', async () => {
    await assertRefused(inspectTar(rawTar([{ name: '../evil.sh', content: 'x' }])), 'path_escape', '../evil.sh');
    await assertRefused(inspectTar(rawTar([{ name: 'a/b/../../../evil.sh', content: 'x' }])), 'path_escape', 'a/b/../../../evil.sh');
  });

  it('names the entry in a readable message', async () => {
    await assert.rejects(inspectTar(rawTar([{ name: '../evil.sh', content: 'x' }])), {
      message: 'archive entry "../evil.sh" escapes the archive root',
    });
  });

  it('refuses absolute paths', async () => {
    await assertRefused(inspectTar(rawTar([{ name: '/etc/cron.d/evil', content: 'x' }])), 'path_escape', '/etc/cron.d/evil');
  });

  it('refuses Windows drive letters and backslashes', async () => {
    await assertRefused(inspectTar(rawTar([{ name: 'C:/Windows/evil.exe', content: 'x' }])), 'path_escape', 'C:/Windows/evil.exe');
    await assertRefused(inspectTar(rawTar([{ name: '..\\evil.bat', content: 'x' }])), 'path_escape', '..\\evil.bat');
  });

  it('refuses a pax path that escapes even when the ustar name looks fine', async () => {
    const tar = rawTar([
      { name: 'PaxHeader/ok', type: 'x', content: paxRecord('path', '../../pax-evil') },
      { name: 'ok.txt', content: 'x' },
    ]);
    await assertRefused(inspectTar(tar), 'path_escape', '../../pax-evil');
  });
});

describe('inspectTar: links', () => {
  it('refuses a symlink to /etc', async () => {
    await assertRefused(inspectTar(rawTar([{ name: 'etc', type: '2', linkName: '/etc' }])), 'link_escape', 'etc');
  });

  it('refuses a symlink a -> ../../x but accepts one that stays inside', async () => {
    await assertRefused(inspectTar(rawTar([{ name: 'a', type: '2', linkName: '../../x' }])), 'link_escape', 'a');
    await assertRefused(inspectTar(rawTar([{ name: 'dir/a', type: '2', linkName: '../../x' }])), 'link_escape', 'dir/a');
    const [entry] = await inspectTar(rawTar([{ name: 'dir/a', type: '2', linkName: '../x' }]));
    assert.equal(entry?.linkTarget, '../x');
  });

  it('refuses entries placed beneath a symlink, which extraction would follow', async () => {
    const tar = rawTar([
      { name: 'here', type: '2', linkName: '.' },
      { name: 'here/escape', type: '2', linkName: '..' },
    ]);
    await assertRefused(inspectTar(tar), 'link_escape', 'here/escape');
  });

  it('refuses hard links outside the root or to anything but an earlier file', async () => {
    await assertRefused(inspectTar(rawTar([{ name: 'h', type: '1', linkName: '../../etc/passwd' }])), 'link_escape', 'h');
    await assertRefused(inspectTar(rawTar([{ name: 'h', type: '1', linkName: '/etc/passwd' }])), 'link_escape', 'h');
    await assertRefused(inspectTar(rawTar([{ name: 'h', type: '1', linkName: 'missing' }])), 'link_escape', 'h');
    const viaSymlink = rawTar([
      { name: 'dir/s', type: '2', linkName: '../x' },
      { name: 'h', type: '1', linkName: 'dir/s' },
    ]);
    await assertRefused(inspectTar(viaSymlink), 'link_escape', 'h');
  });
});

describe('inspectTar: special files and odd entries', () => {
  it('refuses character devices, block devices and FIFOs', async () => {
    await assertRefused(inspectTar(rawTar([{ name: 'dev/null', type: '3' }])), 'special_file', 'dev/null');
    await assertRefused(inspectTar(rawTar([{ name: 'dev/sda', type: '4' }])), 'special_file', 'dev/sda');
    await assertRefused(inspectTar(rawTar([{ name: 'pipe', type: '6' }])), 'special_file', 'pipe');
  });

  it('refuses duplicate entries and unknown entry types', async () => {
    await assertRefused(
      inspectTar(
        rawTar([
          { name: 'a', content: '1' },
          { name: './a', content: '2' },
        ]),
      ),
      'duplicate_entry',
      './a',
    );
    await assertRefused(inspectTar(rawTar([{ name: 'sparse', type: 'S' }])), 'unsupported', 'sparse');
  });
});

describe('inspectTar: limits', () => {
  it('refuses too many entries, naming the first one over', async () => {
    const tar = rawTar(['a', 'b', 'c', 'd'].map((name) => ({ name, content: name })));
    await assertRefused(inspectTar(tar, { maxEntries: 3 }), 'too_many_entries', 'd');
    assert.equal((await inspectTar(tar, { maxEntries: 4 })).length, 4);
  });

  it('refuses archives whose files add up to more than the limit', async () => {
    const tar = rawTar([
      { name: 'one.bin', content: Buffer.alloc(600) },
      { name: 'two.bin', content: Buffer.alloc(600) },
    ]);
    await assertRefused(inspectTar(tar, { maxTotalBytes: 1000 }), 'too_large', 'two.bin');
    assert.equal((await inspectTar(tar, { maxTotalBytes: 1200 })).length, 2);
  });

  it('refuses a gzip bomb before inflating it all', async () => {
    const tar = rawTar([{ name: 'zeros', content: Buffer.alloc(1024 * 1024) }]);
    await assertRefused(inspectTar(gzipSync(tar), { maxTotalBytes: 64 * 1024, maxEntries: 10 }), 'too_large');
  });

  it('refuses a small gzip of a huge file of zeros from its header, naming the ratio limit', async () => {
    // 200 MiB of zeros in about 200 KB: under the 1 GiB size limit, far over the ratio limit.
    const size = 200 * 1024 * 1024;
    const gzip = createGzip();
    const compressed: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => compressed.push(chunk));
    const done = new Promise((resolve) => gzip.on('end', resolve));
    gzip.write(tarHeader({ name: 'zeros.img', size }));
    const zeros = Buffer.alloc(1024 * 1024);
    for (let written = 0; written < size; written += zeros.length) {
      if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
    }
    gzip.end(Buffer.alloc(1024));
    await done;
    const bomb = Buffer.concat(compressed);
    assert.ok(bomb.length < 1024 * 1024, `the bomb is ${bomb.length} bytes`);
    await assert.rejects(inspectTar(bomb), (error: unknown) => {
      assert.ok(error instanceof ArchiveError, String(error));
      assert.equal(error.reason, 'compression_ratio', error.message);
      assert.match(error.message, /over the ratio limit of 100 /);
      return true;
    });
    // Under a tighter size limit, the size limit is the one named.
    await assertRefused(inspectTar(bomb, { maxTotalBytes: 10 * 1024 * 1024, maxCompressionRatio: 10_000 }), 'too_large');
    await assert.rejects(
      inspectTar(bomb, { maxTotalBytes: 10 * 1024 * 1024, maxCompressionRatio: 10_000 }),
      /over the size limit of 10485760 bytes/,
    );
  });
});

describe('inspectTar: corrupt input', () => {
  it('refuses random bytes, JSON and an empty body', async () => {
    await assertRefused(inspectTar(randomBytes(4096)), 'corrupt');
    await assertRefused(inspectTar(Buffer.from(JSON.stringify({ hello: 'world', padding: 'x'.repeat(600) }))), 'corrupt');
    await assertRefused(inspectTar(Buffer.from('{"small":true}')), 'corrupt');
    await assertRefused(inspectTar(Buffer.alloc(0)), 'corrupt');
    await assertRefused(inspectTar(Buffer.from([0x1f, 0x8b, 1, 2, 3])), 'corrupt');
  });

  it('refuses a tar truncated inside a file or before its end marker', async () => {
    const tar = rawTar([{ name: 'big.bin', content: Buffer.alloc(2000, 1) }]);
    await assertRefused(inspectTar(tar.subarray(0, 1200)), 'corrupt', 'big.bin');
    await assertRefused(inspectTar(rawTar([{ name: 'a', content: 'a' }], { end: false })), 'corrupt');
  });

  it('refuses a header with a bad checksum or a malformed pax record', async () => {
    const tar = rawTar([{ name: 'a', content: 'a' }]);
    tar[0] = 'b'.charCodeAt(0);
    await assertRefused(inspectTar(tar), 'corrupt');
    const badPax = rawTar([{ name: 'PaxHeader/a', type: 'x', content: '99 path=a\n' }, { name: 'a' }]);
    await assertRefused(inspectTar(badPax), 'corrupt', 'PaxHeader/a');
  });
});
