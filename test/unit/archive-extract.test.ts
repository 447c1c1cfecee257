import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ArchiveError, createTar, extractTar, writeTar, type ArchiveErrorReason, type TarMember } from '../../src/lib/archive/index.js';

let scratch = '';
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'archive-extract-'));
});
afterEach(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function file(path: string, content: string, mode = 0o644): TarMember {
  return { entry: { path, type: 'file', size: Buffer.byteLength(content), mode }, data: Buffer.from(content) };
}

function link(path: string, type: 'symlink' | 'hardlink', linkTarget: string): TarMember {
  return { entry: { path, type, size: 0, mode: 0o777, linkTarget }, data: Buffer.alloc(0) };
}

async function assertRefused(promise: Promise<unknown>, reason: ArchiveErrorReason, entry: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ArchiveError, `expected an ArchiveError, got ${String(error)}`);
    assert.equal(error.reason, reason, error.message);
    assert.equal(error.entry, entry, error.message);
    assert.ok(error.message.includes(JSON.stringify(entry)), error.message);
    return true;
  });
}

describe('extractTar', () => {
  it('writes nested directories, contents, modes and links into a new directory', async () => {
    const tar = writeTar([
      { entry: { path: 'conf', type: 'directory', size: 0, mode: 0o750 }, data: Buffer.alloc(0) },
      file('conf/deep/main.tf', 'resource "null" "x" {}\n'),
      file('bin/run.sh', '#!/bin/sh\necho hi\n', 0o755),
      link('bin/main.tf', 'symlink', '../conf/deep/main.tf'),
      link('copy.sh', 'hardlink', 'bin/run.sh'),
    ]);
    const target = join(scratch, 'workdir');
    await extractTar(tar, target);
    assert.equal(readFileSync(join(target, 'conf/deep/main.tf'), 'utf8'), 'resource "null" "x" {}\n');
    assert.equal(statSync(join(target, 'bin/run.sh')).mode & 0o777, 0o755);
    assert.equal(statSync(join(target, 'conf/deep/main.tf')).mode & 0o777, 0o644);
    assert.equal(statSync(join(target, 'conf')).mode & 0o777, 0o750);
    assert.equal(readlinkSync(join(target, 'bin/main.tf')), '../conf/deep/main.tf');
    assert.equal(readFileSync(join(target, 'bin/main.tf'), 'utf8'), 'resource "null" "x" {}\n');
    assert.equal(statSync(join(target, 'copy.sh')).ino, statSync(join(target, 'bin/run.sh')).ino);
  });

  it('keeps the executable bit of files built with createTar', async () => {
    await extractTar(await createTar({ 'scripts/start.sh': { content: '#!/bin/sh\n', mode: 0o755 }, 'README.md': '# hi\n' }), scratch);
    assert.equal(statSync(join(scratch, 'scripts/start.sh')).mode & 0o777, 0o755);
    assert.equal(statSync(join(scratch, 'README.md')).mode & 0o777, 0o644);
  });

  it('refuses to write through a symlink already in the directory', async () => {
    const outside = join(scratch, 'outside');
    const target = join(scratch, 'target');
    mkdirSync(outside);
    mkdirSync(target);
    writeFileSync(join(outside, 'victim'), 'untouched');
    symlinkSync(outside, join(target, 'parent'));
    symlinkSync(join(outside, 'victim'), join(target, 'victim'));

    await assertRefused(extractTar(await createTar({ 'parent/planted': 'x' }), target), 'link_escape', 'parent/planted');
    await assertRefused(extractTar(await createTar({ victim: 'overwritten' }), target), 'link_escape', 'victim');
    assert.deepEqual(readdirSync(outside), ['victim']);
    assert.equal(readFileSync(join(outside, 'victim'), 'utf8'), 'untouched');
  });

  it('writes and refuses the same way when the archive is too big to write with blocking calls', async () => {
    // More than 64 entries: written through the thread pool rather than with blocking calls.
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`dir-${i % 4}/file-${i}.txt`, `content ${i}`]));
    const big = join(scratch, 'big');
    await extractTar(await createTar({ ...many, 'run.sh': { content: '#!/bin/sh\n', mode: 0o755 } }), big);
    assert.equal(readdirSync(big).length, 5);
    assert.equal(readFileSync(join(big, 'dir-3/file-79.txt'), 'utf8'), 'content 79');
    assert.equal(statSync(join(big, 'run.sh')).mode & 0o777, 0o755);
    assert.equal(statSync(join(big, 'dir-0/file-0.txt')).mode & 0o777, 0o644);

    const outside = join(scratch, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'victim'), 'untouched');
    symlinkSync(join(outside, 'victim'), join(big, 'victim'));
    symlinkSync(outside, join(big, 'parent'));
    await assertRefused(extractTar(await createTar({ ...many, victim: 'overwritten' }), big), 'link_escape', 'victim');
    await assertRefused(extractTar(await createTar({ ...many, 'parent/planted': 'x' }), big), 'link_escape', 'parent/planted');
    assert.deepEqual(readdirSync(outside), ['victim']);
    assert.equal(readFileSync(join(outside, 'victim'), 'utf8'), 'untouched');
  });

  it('validates the whole archive before writing anything', async () => {
    const tar = writeTar([file('good.txt', 'fine'), file('../evil.sh', 'rm -rf /')]);
    const target = join(scratch, 'target');
    await assertRefused(extractTar(tar, target), 'path_escape', '../evil.sh');
    assert.equal(existsSync(join(target, 'good.txt')), false);
    assert.equal(existsSync(join(scratch, 'evil.sh')), false);
  });

  it('refuses a symlink out of the root and anything written through one', async () => {
    const target = join(scratch, 'target');
    await assertRefused(extractTar(writeTar([link('etc', 'symlink', '/etc')]), target), 'link_escape', 'etc');
    const through = writeTar([link('here', 'symlink', '.'), link('here/up', 'symlink', '..')]);
    await assertRefused(extractTar(through, target), 'link_escape', 'here/up');
    assert.equal(existsSync(join(target, 'etc')) || existsSync(join(target, 'here')), false);
    assert.equal(lstatSync(scratch).isDirectory(), true);
  });
});
