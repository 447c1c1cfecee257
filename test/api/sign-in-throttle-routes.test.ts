import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { createMember, createOwner, startTestDaemon } from '../helpers/test-daemon.js';

/**
 * Sends one request with the path exactly as given: fetch and the SDK would normalise some of the
 * spellings an attacker tries.
 */
function sendRaw(
  baseUrl: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | undefined }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method,
        path,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Spellings of `/api/v2/users/login` that reach the sign-in route, each a fresh bucket when limits count the literal path. */
const LOGIN_SPELLINGS = [
  '/api/v2/users/login',
  '/api/v2/users/%6Cogin',
  '/api/v2/users/%6cogin',
  '/api/v2/users/l%6Fgin',
  '/api/v2/users/lo%67in',
  '/api/v2/users/log%69n',
  '/api/v2/users/logi%6E',
  '/api/v2/%75sers/login',
  '/%61pi/v2/users/login?x=1',
];

describe('rate limits count the matched route, not the spelling of its path', () => {
  it('refuses the 61st password guess in a minute however the login path is spelled', async () => {
    const test = await startTestDaemon();
    try {
      // No owner is signed in first: that sign-in would count in the same bucket.
      const statuses: number[] = [];
      // Every guess is for another (unknown) email, so only the per-route limit can refuse it.
      // Four at a time: each guess costs a password hash.
      for (let batch = 0; batch < 15; batch++) {
        const guesses = [0, 1, 2, 3].map((slot) => {
          const i = batch * 4 + slot;
          const path = LOGIN_SPELLINGS[i % LOGIN_SPELLINGS.length] ?? '';
          return sendRaw(test.url, 'POST', path, JSON.stringify({ email: `guess-${i}@example.com`, password: `wrong-${i}` }));
        });
        for (const answer of await Promise.all(guesses)) statuses.push(answer.status);
      }
      // The clock has not moved: all 60 are within one minute, and each was checked.
      assert.deepEqual(
        statuses.filter((status) => status !== 401),
        [],
      );
      for (const path of LOGIN_SPELLINGS) {
        const limited = await sendRaw(test.url, 'POST', path, JSON.stringify({ email: 'one-more@example.com', password: 'guess' }));
        assert.equal(limited.status, 429, `${path} was not limited`);
        assert.equal(limited.retryAfter, '60');
      }
      // A minute later (two, for the sliding window's previous minute) guesses are checked again.
      test.clock.advance(120_000);
      assert.equal(
        (await sendRaw(test.url, 'POST', LOGIN_SPELLINGS[1] ?? '', JSON.stringify({ email: 'x@example.com', password: 'y' }))).status,
        401,
      );
    } finally {
      await test.close();
    }
  });

  it('counts API requests for one resource in one bucket however its path is spelled', async () => {
    const test = await startTestDaemon({ flags: { rateLimitApi: '6' } });
    try {
      await createOwner(test);
      const member = await createMember(test, 'member');
      const headers = { 'Service-Session-Token': member.token ?? '' };
      const spellings = [
        '/api/v2/users/me',
        '/api/v2/users/%6De',
        '/api/v2/users/ME',
        '/api/v2/users/m%65',
        '/api/v2/%75sers/me',
        '/api/v2/users/Me',
      ];
      const statuses = [];
      for (const path of spellings) statuses.push((await sendRaw(test.url, 'GET', path, undefined, headers)).status);
      assert.ok(
        statuses.every((status) => status === 200 || status === 404),
        String(statuses),
      );
      assert.equal((await sendRaw(test.url, 'GET', '/api/v2/users/%4D%45', undefined, headers)).status, 429);
      // Another resource on the same route has a bucket of its own.
      assert.equal((await sendRaw(test.url, 'GET', '/api/v2/users/member', undefined, headers)).status, 200);
    } finally {
      await test.close();
    }
  });
});
