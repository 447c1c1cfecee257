import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTar, readTar, tarToZip, writeTar } from '../../src/lib/archive/index.js';
import { newId } from '../../src/lib/random.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError, rawRequest } from '../helpers/expect-api-error.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('files', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    member = await createMember(test, 'member');
  });
  after(async () => test.close());

  it('stores a tar once per uploader: 201, then 200 with the same id', async () => {
    const tar = await createTar({ 'template.yaml': 'resources: []\n', 'scripts/run.sh': { content: '#!/bin/sh\n', mode: 0o755 } });
    const first = await member.uploadFile(tar);
    assert.equal(first.created, true);
    const again = await member.uploadFile(tar);
    assert.deepEqual(again, { id: first.id, created: false });
    const byOwner = await owner.uploadFile(tar);
    assert.equal(byOwner.created, true, 'deduplication is per uploader');
    assert.notEqual(byOwner.id, first.id);
    assert.deepEqual(await member.downloadFile(first.id), tar);
  });

  it('accepts a zip, stores it as tar and serves it back as either', async () => {
    const zip = await tarToZip(await createTar({ 'README.md': '# hi\n', 'bin/start': { content: 'echo start\n', mode: 0o755 } }));
    const { id, created } = await member.uploadFile(zip, 'application/zip');
    assert.equal(created, true);
    const members = await readTar(await member.downloadFile(id));
    assert.deepEqual(
      members.map((m) => [m.entry.path, m.entry.mode & 0o777, m.data.toString('utf8')]).sort(),
      [
        ['README.md', 0o644, '# hi\n'],
        ['bin/start', 0o755, 'echo start\n'],
      ].sort(),
    );
    const asZip = await member.downloadFile(id, 'zip');
    assert.equal(asZip.subarray(0, 4).toString('hex'), '504b0304');
  });

  it('refuses unsafe archives with a 400 that names the entry, and stores nothing', async () => {
    const evil = writeTar([{ entry: { path: '../evil', type: 'file', size: 4, mode: 0o644 }, data: Buffer.from('evil') }]);
    const refused = await expectApiError(member.uploadFile(evil), 400);
    assert.match(refused.body.detail ?? '', /"\.\.\/evil"/);
    const link = writeTar([{ entry: { path: 'etc', type: 'symlink', size: 0, mode: 0o777, linkTarget: '/etc' }, data: Buffer.alloc(0) }]);
    await expectApiError(member.uploadFile(link), 400);
    await expectApiError(member.uploadFile(Buffer.from('not an archive at all')), 400);
    const count = await test.daemon.store.db
      .selectFrom('files')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 3, 'only the earlier good uploads are stored');
  });

  it('names the content types it takes, and limits the size to 100 MiB', async () => {
    const wrong = await rawRequest(test.url, 'POST', '/files', {
      body: 'hello',
      headers: { 'content-type': 'text/plain', 'service-session-token': member.token ?? '' },
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body['message'], 'Unsupported content type header "text/plain".');
    const big = Buffer.alloc(100 * 1024 * 1024 + 1);
    const tooBig = await rawRequest(test.url, 'POST', '/files', {
      body: big as unknown as string,
      headers: { 'content-type': 'application/x-tar', 'service-session-token': member.token ?? '' },
    });
    assert.equal(tooBig.status, 413);
  });

  it('hides files from other users, and answers bad ids and formats clearly', async () => {
    const tar = await createTar({ 'a.txt': 'a' });
    const { id } = await owner.uploadFile(tar);
    await expectApiError(member.downloadFile(id), 404);
    await expectApiError(member.downloadFile(newId()), 404);
    await expectApiError(member.downloadFile('not-a-uuid'), 400);
    const format = await expectApiError(owner.requestBytes('GET', `/files/${id}`, { query: { format: 'rar' } }), 400);
    assert.equal(format.message, 'Unsupported conversion format.');
    await expectApiError(test.anonymous.uploadFile(tar), 401);
  });
});
