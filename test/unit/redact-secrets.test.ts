import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactSecrets, redactUrlCredentials } from '../../src/cli/redact-secrets.js';

describe('redactSecrets (support bundles)', () => {
  it('replaces values under keys naming a secret, password, token or key, at any depth', () => {
    const config = {
      http_address: '127.0.0.1:3000',
      oidc: { client_secret: 's3cr3t', client_id: 'cove' },
      email: { smtp: { password: 'pw', username: 'mailer' } },
      provisioner: { daemon_psk_token: 'tok', signing_keys: ['k1', 'k2'] },
      empty_secret: '',
    };
    assert.deepEqual(redactSecrets(config), {
      http_address: '127.0.0.1:3000',
      oidc: { client_secret: '[redacted]', client_id: 'cove' },
      email: { smtp: { password: '[redacted]', username: 'mailer' } },
      provisioner: { daemon_psk_token: '[redacted]', signing_keys: '[redacted]' },
      empty_secret: '',
    });
  });

  it('replaces the value and default of an option whose names look secret or that is marked secret', () => {
    const options = [
      {
        name: 'License Public Keys',
        flag: 'license-public-keys',
        env: 'COVE_LICENSE_PUBLIC_KEYS',
        value: ['abc'],
        default: 'xyz',
        annotations: {},
      },
      {
        name: 'PostgreSQL URL',
        flag: 'postgres-url',
        env: 'COVE_PG_CONNECTION_URL',
        value: 'postgres://u:p@h/d',
        default: '',
        annotations: { secret: 'true' },
      },
      {
        name: 'HTTP Address',
        flag: 'http-address',
        env: 'COVE_HTTP_ADDRESS',
        value: '0.0.0.0:80',
        default: '127.0.0.1:3000',
        annotations: {},
      },
    ];
    const [keys, database, address] = redactSecrets(options) as { value: unknown; default: unknown }[];
    assert.deepEqual([keys?.value, keys?.default], ['[redacted]', '[redacted]']);
    assert.deepEqual([database?.value, database?.default], ['[redacted]', '']);
    assert.deepEqual([address?.value, address?.default], ['0.0.0.0:80', '127.0.0.1:3000']);
  });

  it('takes passwords out of URLs in any string', () => {
    assert.equal(redactUrlCredentials('see postgres://cove:hunter2@db:5432/cove now'), 'see postgres://cove:[redacted]@db:5432/cove now');
    assert.equal(redactUrlCredentials('https://example.com/a:b@c'), 'https://example.com/a:b@c');
    assert.deepEqual(redactSecrets({ access_url: 'https://u:pw@cove.example.com' }), {
      access_url: 'https://u:[redacted]@cove.example.com',
    });
  });
});
