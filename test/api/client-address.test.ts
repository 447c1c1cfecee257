import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { STRONG_PASSWORD, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Which address a request is counted and recorded under, for a daemon that trusts no proxy and one
 * that trusts loopback's X-Real-IP. (Behind a real nginx: test/e2e/reverse-proxy.test.ts.)
 */
describe('the client address of a request', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  let plain: TestDaemon;
  let proxied: TestDaemon;
  let plainOwner: CoveClient;
  let proxiedOwner: CoveClient;

  /** A wrong password for a new email each time (one account's failures are paced apart), and the requests left. */
  const failSignIn = async (test: TestDaemon, headers: Record<string, string>): Promise<number> => {
    // The audit log is newest first by the daemon's clock, which stands still unless moved.
    test.clock.advance(1000);
    const response = await fetch(`${test.url}/api/v2/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ email: `nobody-${Math.random()}@example.com`, password: 'wrong' }),
    });
    assert.equal(response.status, 401);
    return Number(response.headers.get('x-ratelimit-remaining'));
  };
  const newestLoginIp = async (owner: CoveClient): Promise<string | undefined> =>
    (await owner.auditLogs({ q: 'action:login', limit: 1 })).audit_logs[0]?.ip;

  before(async () => {
    [plain, proxied] = await Promise.all([
      startTestDaemon({ database: 'sqlite' }),
      startTestDaemon({ database: 'sqlite', flags: { proxyTrustedHeaders: 'X-Real-IP', proxyTrustedOrigins: '127.0.0.0/8' } }),
    ]);
    [plainOwner, proxiedOwner] = await Promise.all([createOwner(plain), createOwner(proxied)]);
  });

  after(async () => {
    await Promise.all([plain?.close(), proxied?.close()]);
  });

  it('ignores forwarding headers when no proxy is trusted: a made-up X-Forwarded-For changes nothing', async () => {
    const first = await failSignIn(plain, { 'x-forwarded-for': '10.6.6.1', 'x-real-ip': '10.6.6.1' });
    const second = await failSignIn(plain, { 'x-forwarded-for': '10.6.6.2', 'x-real-ip': '10.6.6.2' });
    assert.equal(second, first - 1, 'one rate-limit bucket for both');
    assert.equal(await newestLoginIp(plainOwner), '127.0.0.1');
  });

  it('believes a trusted header from a trusted peer, for rate limits and the audit log', async () => {
    const first = await failSignIn(proxied, { 'x-real-ip': '198.51.100.1' });
    const other = await failSignIn(proxied, { 'x-real-ip': '198.51.100.2' });
    assert.equal(other, first, 'each address has its own bucket');
    assert.equal(await failSignIn(proxied, { 'x-real-ip': '198.51.100.1' }), first - 1);
    assert.equal(await newestLoginIp(proxiedOwner), '198.51.100.1');
    // X-Forwarded-For is not a trusted header on this daemon.
    await failSignIn(proxied, { 'x-forwarded-for': '198.51.100.3' });
    assert.equal(await newestLoginIp(proxiedOwner), '127.0.0.1');

    proxied.clock.advance(1000);
    const response = await fetch(`${proxied.url}/api/v2/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-real-ip': '198.51.100.4' },
      body: JSON.stringify({ email: 'owner@example.com', password: STRONG_PASSWORD }),
    });
    assert.equal(response.status, 201);
    assert.equal(await newestLoginIp(proxiedOwner), '198.51.100.4');
  });
});
