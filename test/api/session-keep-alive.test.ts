import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const MINUTE_MS = 60_000;

/**
 * Most requests are answered from the session cache without a query; these check that the cached
 * path still records a key's use, refreshes its expiry, and refuses what the full path refuses.
 */
describe('a session answered from the cache', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let token: string;
  let keyId: string;
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    token = owner.token ?? '';
    keyId = token.split('-')[0] ?? '';
  });
  after(async () => test.close());

  it('refuses a wrong secret for a key whose session is cached', async () => {
    await owner.user('me');
    const last = token.at(-1) === 'a' ? 'b' : 'a';
    const forged = test.anonymous.withToken(token.slice(0, -1) + last);
    await expectApiError(forged.user('me'), 401, /secret is invalid/);
    await expectApiError(test.anonymous.withToken(token.slice(0, -1)).user('me'), 401, /secret length/);
    assert.equal((await owner.user('me')).username, 'owner');
  });

  it('records the hourly use and refreshes the expiry when the cached session falls due', async () => {
    const issued = await owner.apiKey(keyId);
    // Just under an hour: the full path runs (the cache has expired) and finds nothing due.
    test.clock.advance(59 * MINUTE_MS + 30_000);
    await owner.user('me');
    const quiet = await owner.apiKey(keyId);
    assert.equal(quiet.last_used, issued.last_used);
    assert.equal(quiet.expires_at, issued.expires_at);
    // 40 s later the session is still cached, but an hour has passed since the recorded use.
    test.clock.advance(40_000);
    const now = test.clock.now().toISOString();
    await owner.user('me');
    const used = await owner.apiKey(keyId);
    assert.equal(used.last_used, now);
    assert.ok(Date.parse(used.expires_at) > Date.parse(issued.expires_at), `${used.expires_at} should be later than ${issued.expires_at}`);
    assert.equal((await owner.user('me')).last_seen_at, now);
  });

  it('refuses an expired key even while its session is cached', async () => {
    const key = await owner.apiKey(keyId);
    await owner.user('me');
    test.clock.set(new Date(Date.parse(key.expires_at) + 1000));
    await expectApiError(owner.user('me'), 401, /expired/);
  });
});
