import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SlidingWindowLimiter } from '../../src/api/rate-limiter.js';
import { createMember, createOwner, startTestDaemon } from '../helpers/test-daemon.js';
import { rawRequest } from '../helpers/expect-api-error.js';

describe('rate limiting', () => {
  it('answers 429 with Retry-After once a caller passes the per-path limit, per user and per path', async () => {
    const test = await startTestDaemon({ flags: { rateLimitApi: '5' } });
    try {
      const owner = await createOwner(test);
      const member = await createMember(test, 'member');
      const headers = { 'Service-Session-Token': member.token ?? '' };
      for (let i = 0; i < 5; i++) {
        const ok = await rawRequest(test.url, 'GET', '/users/me', { headers });
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get('x-ratelimit-limit'), '5');
      }
      const limited = await rawRequest(test.url, 'GET', '/users/me', { headers });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '60');
      assert.equal(limited.body['message'], "You've been rate limited for sending more than 5 requests in 1m0s.");
      // Another path and another user have buckets of their own.
      assert.equal((await rawRequest(test.url, 'GET', '/experiments', { headers })).status, 200);
      assert.equal(
        (await rawRequest(test.url, 'GET', '/users/me', { headers: { 'Service-Session-Token': owner.token ?? '' } })).status,
        200,
      );
      // Two minutes later the window has passed.
      test.clock.advance(120_000);
      assert.equal((await rawRequest(test.url, 'GET', '/users/me', { headers })).status, 200);
    } finally {
      await test.close();
    }
  });

  it('with the default limit, lets 512 of 600 requests in a minute through', async () => {
    const test = await startTestDaemon();
    try {
      await createOwner(test);
      const member = await createMember(test, 'member');
      const headers = { 'Service-Session-Token': member.token ?? '' };
      const statuses: number[] = [];
      for (let i = 0; i < 600; i++) statuses.push((await rawRequest(test.url, 'GET', '/users/me', { headers })).status);
      assert.equal(statuses.indexOf(429), 512);
      assert.equal(statuses.filter((status) => status === 200).length, 512);
      assert.ok(statuses.slice(512).every((status) => status === 429));
    } finally {
      await test.close();
    }
  });

  it('lets owners bypass the limit and refuses the bypass header from anyone else', async () => {
    const test = await startTestDaemon({ flags: { rateLimitApi: '2' } });
    try {
      const owner = await createOwner(test);
      const member = await createMember(test, 'member');
      const bypass = { 'x-cove-bypass-ratelimit': 'true' };
      for (let i = 0; i < 4; i++) {
        const res = await rawRequest(test.url, 'GET', '/users/me', { headers: { ...bypass, 'Service-Session-Token': owner.token ?? '' } });
        assert.equal(res.status, 200);
      }
      const refused = await rawRequest(test.url, 'GET', '/users/me', {
        headers: { ...bypass, 'Service-Session-Token': member.token ?? '' },
      });
      assert.equal(refused.status, 428);
      assert.match(String(refused.body['message']), /not owner/);
    } finally {
      await test.close();
    }
  });

  it('turns every limit off with disable_all', async () => {
    const test = await startTestDaemon({ flags: { rateLimitApi: '1', rateLimitDisableAll: 'true' } });
    try {
      for (let i = 0; i < 5; i++) assert.equal((await rawRequest(test.url, 'GET', '/buildinfo')).status, 200);
    } finally {
      await test.close();
    }
  });

  it('weights the previous window by its overlap with the last minute', () => {
    const limiter = new SlidingWindowLimiter(10);
    for (let i = 0; i < 10; i++) assert.equal(limiter.hit('k', 30_000).allowed, true);
    assert.equal(limiter.hit('k', 59_000).allowed, false);
    // At 90 s the previous window (10 hits) still overlaps by half: 5 more are allowed, not 10.
    let allowed = 0;
    for (let i = 0; i < 10; i++) if (limiter.hit('k', 90_000).allowed) allowed++;
    assert.equal(allowed, 5);
  });
});
