import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { createTar, inspectTar, readTar } from '../../src/lib/archive/index.js';
import {
  ArchiveRefused,
  MAX_ARCHIVE_BYTES,
  MAX_ARCHIVE_FILES,
  pathProblem,
  readTemplateArchive,
  textOf,
  writeTemplateArchive,
} from '../../src/web/template-archive.js';

// The dashboard's tar reader and writer (they run in the browser; Node has the same web APIs),
// checked against the server's own archive code, which reads what the dashboard uploads.
describe("the dashboard's template archives", () => {
  const longDirectory = `${'deep/'.repeat(30)}x`;
  const longName = `${'n'.repeat(120)}.tf`;

  it('reads what the server writes: paths, contents and modes, directories implied', async () => {
    const tar = await createTar({
      'main.tf': 'resource "x" "y" {}\n',
      'scripts/': '',
      'scripts/start.sh': { content: '#!/bin/sh\n', mode: 0o755 },
      [`${longDirectory}/${longName}`]: 'long',
    });
    const { files, skipped } = await readTemplateArchive(new Uint8Array(tar));
    assert.deepEqual(skipped, []);
    assert.deepEqual(
      files.map((file) => [file.path, textOf(file.data), file.mode.toString(8)]),
      [
        [`${longDirectory}/${longName}`, 'long', '644'],
        ['main.tf', 'resource "x" "y" {}\n', '644'],
        ['scripts/start.sh', '#!/bin/sh\n', '755'],
      ],
    );
    const gzipped = await readTemplateArchive(new Uint8Array(gzipSync(tar)));
    assert.deepEqual(
      gzipped.files.map((file) => file.path),
      files.map((file) => file.path),
    );
  });

  it('writes a tar the server accepts and reads back the same, long paths and modes included', async () => {
    const encoder = new TextEncoder();
    const written = await writeTemplateArchive([
      { path: 'echo.json', data: encoder.encode('{}'), mode: 0o644 },
      { path: 'scripts/start.sh', data: encoder.encode('#!/bin/sh\necho é\n'), mode: 0o755 },
      { path: `${'a'.repeat(60)}/${'b'.repeat(90)}.txt`, data: encoder.encode('split into prefix and name'), mode: 0o600 },
      { path: `${longDirectory}/${longName}`, data: encoder.encode('needs a pax header'), mode: 0o644 },
      { path: 'empty', data: new Uint8Array(0), mode: 0o644 },
    ]);
    const buffer = Buffer.from(written);
    await inspectTar(buffer);
    const members = await readTar(buffer);
    const files = members.filter((member) => member.entry.type === 'file');
    assert.deepEqual(
      files.map((member) => [member.entry.path, member.data.toString('utf8'), member.entry.mode.toString(8)]).sort(),
      [
        [`${'a'.repeat(60)}/${'b'.repeat(90)}.txt`, 'split into prefix and name', '600'],
        [`${longDirectory}/${longName}`, 'needs a pax header', '644'],
        ['echo.json', '{}', '644'],
        ['empty', '', '644'],
        ['scripts/start.sh', '#!/bin/sh\necho é\n', '755'],
      ].sort(),
    );
    assert.ok(members.some((member) => member.entry.type === 'directory' && member.entry.path === 'scripts'));
    // The same files give the same bytes.
    assert.deepEqual(await writeTemplateArchive((await readTemplateArchive(written)).files), written);
  });

  it('refuses archives over the size or file limits, and tells binary from text', async () => {
    await assert.rejects(readTemplateArchive(new Uint8Array(MAX_ARCHIVE_BYTES + 1)), ArchiveRefused);
    const many: Record<string, string> = {};
    for (let index = 0; index <= MAX_ARCHIVE_FILES; index++) many[`f${index}`] = '';
    await assert.rejects(readTemplateArchive(new Uint8Array(await createTar(many))), /more than 500 files/);
    const bomb = gzipSync(await createTar({ big: Buffer.alloc(MAX_ARCHIVE_BYTES + 1024) }));
    await assert.rejects(readTemplateArchive(new Uint8Array(bomb)), /MiB/);
    assert.equal(textOf(new Uint8Array([0x66, 0, 0x67])), undefined);
    assert.equal(textOf(new Uint8Array([0xff, 0xfe])), undefined);
    assert.equal(textOf(new TextEncoder().encode('héllo')), 'héllo');
  });

  it('says why a new path cannot be used', () => {
    const taken = ['main.tf', 'scripts/start.sh'];
    assert.equal(pathProblem('notes/a.txt', taken), undefined);
    assert.match(pathProblem('', taken)!, /name/);
    assert.match(pathProblem('/etc/passwd', taken)!, /relative/);
    assert.match(pathProblem('a/../../b', taken)!, /\.\./);
    assert.match(pathProblem('./main.tf', taken)!, /already/);
    assert.match(pathProblem('scripts', taken)!, /directory/);
    assert.match(pathProblem('main.tf/x', taken)!, /inside another file/);
  });
});
