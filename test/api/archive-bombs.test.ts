import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { constants, createGzip } from 'node:zlib';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/** A tar header (ustar) for one regular file of `size` bytes, with its checksum. */
function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0' + '00', 257);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return header;
}

/** A gzip'd tar holding one file of `size` zero bytes: a few hundred KB that expand to `size`. */
async function gzipBomb(size: number): Promise<Buffer> {
  const gzip = createGzip({ level: constants.Z_BEST_COMPRESSION });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => gzip.once('end', resolve));
  gzip.write(tarHeader('zeros.bin', size));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let written = 0; written < size; written += zeros.length) {
    if (!gzip.write(zeros)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end(Buffer.alloc(1024));
  await done;
  return Buffer.concat(chunks);
}

describe('compressed archives that expand without bound', () => {
  let test: TestDaemon;
  let member: CoveClient;
  let bomb: Buffer;
  before(async () => {
    test = await startTestDaemon();
    member = await createMember(test, 'mallory');
    bomb = await gzipBomb(900 * 1024 * 1024);
  });
  after(async () => test.close());

  it('refuses a gzip bomb with 413 naming the limit', async () => {
    assert.ok(bomb.length < 2 * 1024 * 1024, `the bomb is ${bomb.length} bytes`);
    const error = await expectApiError(member.uploadFile(bomb), 413);
    assert.match(`${error.body?.message ?? ''} ${error.body?.detail ?? ''}`, /limit/);
  });

  it('keeps memory bounded while ten bombs arrive at once', async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    try {
      const answers = await Promise.allSettled(Array.from({ length: 10 }, () => member.uploadFile(bomb)));
      for (const answer of answers) {
        assert.equal(answer.status, 'rejected');
        assert.equal((answer.reason as { status?: number }).status, 413);
      }
    } finally {
      clearInterval(sampler);
    }
    // The test runner and the daemon share this process; what the bombs add must stay small.
    assert.ok(peak - before < 300 * 1024 * 1024, `memory grew by ${Math.round((peak - before) / 1024 / 1024)} MiB`);
  });
});
