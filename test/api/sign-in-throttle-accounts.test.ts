import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { silentLogger, startDaemon } from '../../src/daemon/index.js';
import { resolveOptions } from '../../src/domain/deployment-options.js';
import { NEEDS_POSTGRES } from '../helpers/databases.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

const WRONG = 'Wrong-Horse-Battery-9';
/** An address the accounts here never signed in from. */
const STRANGER = { from: '127.0.0.60' };

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: { message?: string; detail?: string };
}

/**
 * One request, sent from `from` (any 127.x.y.z address is this host's loopback), with the path
 * exactly as given: a fresh address and another spelling of the path are what an attacker
 * changes to get around a limit.
 */
function post(baseUrl: string, path: string, body: unknown, from = '127.0.0.1'): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, localAddress: from, method: 'POST', path, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
            body: text ? (JSON.parse(text) as Answer['body']) : {},
          });
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function login(test: { url: string }, email: string, password: string, options: { path?: string; from?: string } = {}): Promise<Answer> {
  return post(test.url, options.path ?? '/api/v2/users/login', { email, password }, options.from);
}

/** Guesses wrong until the account's attempts are paced, and checks each guess was checked first. */
async function guessFiveTimes(test: TestDaemon, email: string): Promise<void> {
  const paths = ['/api/v2/users/login', '/api/v2/users/%6Cogin', '/api/v2/%75sers/login', '/api/v2/users/l%6Fgin', '/api/v2/users/login?x'];
  for (const [i, path] of paths.entries()) {
    const answer = await login(test, email, WRONG, { path, from: `127.0.0.${10 + i}` });
    assert.equal(answer.status, 401, `guess ${i + 1}: ${JSON.stringify(answer.body)}`);
  }
}

describe('failed sign-ins are paced per account', () => {
  it('refuses the sixth wrong password for an account from any address and path, leaves other accounts alone, and lets the right one in after the pause', async () => {
    const test = await startTestDaemon();
    try {
      await createOwner(test);
      await createMember(test, 'alice');
      await createMember(test, 'bob');
      await guessFiveTimes(test, 'alice@example.com');

      // From an address and a spelling not used so far, and in another letter case: still paused,
      // and the password is not checked: the right one is refused too.
      const sixth = await login(test, 'ALICE@example.com', WRONG, { from: '127.0.0.99', path: '/api/v2/users/logi%6E' });
      assert.equal(sixth.status, 429);
      assert.equal(sixth.retryAfter, '1');
      assert.equal(sixth.body.message, 'Too many failed sign-in attempts for this account. Try again in 1 second.');
      assert.match(sixth.body.detail ?? '', /at most 30 seconds/);
      assert.equal((await login(test, 'alice@example.com', STRONG_PASSWORD, { from: '127.0.0.98' })).status, 429);

      // Another account is not paced.
      assert.equal((await login(test, 'bob@example.com', WRONG)).status, 401);
      assert.equal((await login(test, 'bob@example.com', STRONG_PASSWORD)).status, 201);

      // Once the pause has passed, the right password signs in, and the count starts over.
      test.clock.advance(1000);
      assert.equal((await login(test, 'alice@example.com', STRONG_PASSWORD)).status, 201);
      await guessFiveTimes(test, 'alice@example.com');
    } finally {
      await test.close();
    }
  });

  it('never pauses the account where its owner signs in: guesses from elsewhere are counted apart', async () => {
    const test = await startTestDaemon();
    try {
      await createOwner(test);
      // alice signs in from 127.0.0.1 (createMember), which is then an address of hers.
      await createMember(test, 'alice');
      await guessFiveTimes(test, 'alice@example.com');
      // An attacker keeps the account paused everywhere else, as often as the pause ends...
      for (let round = 0; round < 3; round++) {
        test.clock.advance(30_000);
        assert.equal((await login(test, 'alice@example.com', WRONG, { from: '127.0.0.50' })).status, 401);
        assert.equal((await login(test, 'alice@example.com', STRONG_PASSWORD, { from: '127.0.0.51' })).status, 429);
      }
      // ...and alice, where she signs in, is not held up by it.
      assert.equal((await login(test, 'alice@example.com', STRONG_PASSWORD, { from: '127.0.0.1' })).status, 201);
      // Guesses from her address are still paced, on their own count.
      for (let guess = 0; guess < 5; guess++) {
        assert.equal((await login(test, 'alice@example.com', WRONG, { from: '127.0.0.1' })).status, 401);
      }
      assert.equal((await login(test, 'alice@example.com', WRONG, { from: '127.0.0.1' })).status, 429);
    } finally {
      await test.close();
    }
  });

  it('doubles the pause with each further failure, up to 30 seconds, and never pauses longer', async () => {
    const test = await startTestDaemon();
    try {
      await createOwner(test);
      await createMember(test, 'carol');
      await guessFiveTimes(test, 'carol@example.com');
      // From an address carol never used: hers are counted apart.
      const pauses: string[] = [];
      for (let i = 0; i < 7; i++) {
        const paused = await login(test, 'carol@example.com', WRONG, STRANGER);
        assert.equal(paused.status, 429);
        pauses.push(paused.retryAfter ?? '');
        // A refused attempt does not lengthen the pause: asking again says the same.
        assert.equal((await login(test, 'carol@example.com', WRONG, STRANGER)).retryAfter, paused.retryAfter);
        test.clock.advance(Number(paused.retryAfter) * 1000);
        assert.equal((await login(test, 'carol@example.com', WRONG, STRANGER)).status, 401);
      }
      assert.deepEqual(pauses, ['1', '2', '4', '8', '16', '30', '30']);
      test.clock.advance(30_000);
      assert.equal((await login(test, 'carol@example.com', STRONG_PASSWORD)).status, 201);
    } finally {
      await test.close();
    }
  });

  it('checks no more than five of twenty wrong passwords for one account sent all at once from twenty addresses', async () => {
    const test = await startTestDaemon();
    try {
      await createOwner(test);
      await createMember(test, 'frank');
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => login(test, 'frank@example.com', `${WRONG}-${i}`, { from: `127.0.1.${i + 1}` })),
      );
      const checked = answers.filter((answer) => answer.status === 401).length;
      assert.ok(checked >= 1 && checked <= 5, `${checked} guesses were checked`);
      assert.equal(answers.filter((answer) => answer.status === 429).length, 20 - checked);
    } finally {
      await test.close();
    }
  });

  it('paces wrong one-time passcodes per account too, apart from passwords', async () => {
    const test = await startTestDaemon();
    try {
      await createOwner(test);
      await createMember(test, 'dave');
      const change = (email: string, from: string) =>
        post(
          test.url,
          '/api/v2/users/otp/change-password',
          { email, one_time_passcode: 'a-guess', password: 'A-Brand-New-Passphrase-4' },
          from,
        );
      for (let i = 0; i < 5; i++) assert.equal((await change('dave@example.com', `127.0.0.${20 + i}`)).status, 400);
      const sixth = await change('dave@example.com', '127.0.0.30');
      assert.equal(sixth.status, 429);
      assert.equal(sixth.retryAfter, '1');
      assert.equal((await change('owner@example.com', '127.0.0.30')).status, 400);
      // The password of the account is another secret, counted on its own.
      assert.equal((await login(test, 'dave@example.com', STRONG_PASSWORD)).status, 201);
    } finally {
      await test.close();
    }
  });

  it('counts an account’s failures on every replica sharing the database', { skip: NEEDS_POSTGRES }, async () => {
    const first = await startTestDaemon({ database: 'postgres' });
    const target = first.database.target;
    assert.equal(target.kind, 'postgres');
    const secondDir = mkdtempSync(join(tmpdir(), 'cove-replica-'));
    // The same clock: the replicas of a deployment agree on the time.
    const second = await startDaemon(
      resolveOptions({
        flags: { httpAddress: '127.0.0.1:0', dataDir: secondDir, provisionerDaemons: '0', postgresUrl: target.url },
        env: {},
      }),
      { logger: silentLogger(), clock: first.clock },
    );
    try {
      await createOwner(first);
      await createMember(first, 'erin');
      for (let i = 0; i < 5; i++) {
        const replica = i % 2 === 0 ? first : second;
        assert.equal((await login(replica, 'erin@example.com', WRONG, { from: `127.0.0.${40 + i}` })).status, 401);
      }
      assert.equal((await login(second, 'erin@example.com', WRONG, { from: '127.0.0.50' })).status, 429);
      assert.equal((await login(first, 'erin@example.com', WRONG, { from: '127.0.0.51' })).status, 429);
      first.clock.advance(1000);
      assert.equal((await login(second, 'erin@example.com', STRONG_PASSWORD)).status, 201);
    } finally {
      await second.close();
      await first.close();
      rmSync(secondDir, { recursive: true, force: true });
    }
  });
});
