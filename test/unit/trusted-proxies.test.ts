import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OptionError, resolveOptions } from '../../src/domain/deployment-options.js';
import { TrustedProxies } from '../../src/domain/trusted-proxies.js';

/** The trust of a daemon started with these two flags. */
function trusting(headers: string, origins: string): TrustedProxies | undefined {
  const { values } = resolveOptions({ flags: { proxyTrustedHeaders: headers, proxyTrustedOrigins: origins } });
  return TrustedProxies.fromOptions(values);
}

describe('trusted reverse proxies', () => {
  it('believes nothing unless both a header and an origin are given', () => {
    assert.equal(trusting('', ''), undefined);
    assert.equal(trusting('X-Forwarded-For', ''), undefined);
    assert.equal(trusting('', '10.0.0.0/8'), undefined);
  });

  it('reads X-Forwarded-For from the right, skipping trusted hops, and only from a trusted peer', () => {
    const proxies = trusting('X-Forwarded-For', '10.0.0.0/8,fd00::/8');
    assert.ok(proxies);
    // The client sent its own chain; the proxy appended what it saw.
    assert.equal(proxies.clientAddress('10.0.0.5', { 'x-forwarded-for': '6.6.6.6, 203.0.113.7' }), '203.0.113.7');
    assert.equal(proxies.clientAddress('10.0.0.5', { 'x-forwarded-for': '203.0.113.7, 10.1.1.1, 10.2.2.2' }), '203.0.113.7');
    // Every hop a trusted proxy: the leftmost is the client.
    assert.equal(proxies.clientAddress('10.0.0.5', { 'x-forwarded-for': '10.9.9.9, 10.1.1.1' }), '10.9.9.9');
    // Left of an unreadable hop nothing is vouched for.
    assert.equal(proxies.clientAddress('10.0.0.5', { 'x-forwarded-for': '6.6.6.6, junk, 10.1.1.1' }), '10.1.1.1');
    assert.equal(proxies.clientAddress('10.0.0.5', { 'x-forwarded-for': 'junk' }), '10.0.0.5');
    // A peer outside the trusted networks is the client, whatever it says.
    assert.equal(proxies.clientAddress('192.0.2.1', { 'x-forwarded-for': '203.0.113.7' }), '192.0.2.1');
    // Dual-stack sockets, ports and brackets.
    assert.equal(proxies.clientAddress('::ffff:10.0.0.5', { 'x-forwarded-for': '203.0.113.7:5555' }), '203.0.113.7');
    assert.equal(proxies.clientAddress('fd00::1', { 'x-forwarded-for': '[2001:db8::1]:443' }), '2001:db8::1');
  });

  it('tries the headers in their order and takes a single-address header as it is', () => {
    const proxies = trusting('CF-Connecting-IP,X-Real-IP', '127.0.0.1/32');
    assert.ok(proxies);
    assert.equal(proxies.clientAddress('127.0.0.1', { 'x-real-ip': '198.51.100.2', 'cf-connecting-ip': '198.51.100.1' }), '198.51.100.1');
    assert.equal(proxies.clientAddress('127.0.0.1', { 'x-real-ip': '198.51.100.2', 'cf-connecting-ip': 'nonsense' }), '198.51.100.2');
    // X-Forwarded-For is not among the trusted headers here.
    assert.equal(proxies.clientAddress('127.0.0.1', { 'x-forwarded-for': '198.51.100.3' }), '127.0.0.1');
  });

  it('refuses an origin that is not a network and a header that is not a name, naming the flag', () => {
    for (const origin of ['10.0.0.0/33', '10.0.0.1', 'fd00::/129', 'example.com/8', '10.0.0.0/']) {
      assert.throws(
        () => trusting('X-Forwarded-For', origin),
        (error: unknown) =>
          error instanceof OptionError && error.message.startsWith(`--proxy-trusted-origins: "${origin}" is not a network`),
      );
    }
    for (const header of ['X Forwarded For', 'X-Forwarded-For:', 'Été']) {
      assert.throws(
        () => trusting(header, '10.0.0.0/8'),
        (error: unknown) => error instanceof OptionError && error.message === `--proxy-trusted-headers: "${header}" is not a header name`,
      );
    }
  });

  it('reads both options from the YAML file and the environment', () => {
    const fromYaml = resolveOptions({
      yaml: { networking: { proxy_trusted_headers: ['True-Client-IP'], proxy_trusted_origins: ['192.168.1.0/24'] } },
    }).values;
    assert.deepEqual(fromYaml.proxyTrustedHeaders, ['True-Client-IP']);
    assert.deepEqual(fromYaml.proxyTrustedOrigins, ['192.168.1.0/24']);
    const fromEnv = resolveOptions({
      env: { COVE_PROXY_TRUSTED_HEADERS: 'X-Forwarded-For,X-Real-IP', COVE_PROXY_TRUSTED_ORIGINS: '10.0.0.0/8' },
    }).values;
    assert.deepEqual(fromEnv.proxyTrustedHeaders, ['X-Forwarded-For', 'X-Real-IP']);
  });
});
