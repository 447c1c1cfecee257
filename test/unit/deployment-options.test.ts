import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPTION_DEFINITIONS, OptionError, resolveOptions } from '../../src/domain/deployment-options.js';

describe('deployment options', () => {
  it('uses defaults when nothing is given', () => {
    const { values, sources } = resolveOptions({});
    assert.equal(values.httpAddress, '127.0.0.1:3000');
    assert.equal(values.accessUrl, 'http://127.0.0.1:3000');
    assert.equal(values.provisionerDaemons, 3);
    assert.equal(values.rateLimitApi, 512);
    assert.equal(values.sessionDurationMs, 24 * 3_600_000);
    assert.equal(values.maxTokenLifetimeMs, 876_600 * 3_600_000);
    assert.equal(sources.httpAddress, 'default');
  });

  it('ranks flags over the environment over the YAML file', () => {
    const yaml = { networking: { http_address: '0.0.0.0:1', access_url: 'https://yaml.example.com' }, rate_limit: { api: 7 } };
    const { values, sources } = resolveOptions({
      flags: { httpAddress: '0.0.0.0:3' },
      env: { COVE_HTTP_ADDRESS: '0.0.0.0:2', COVE_RATE_LIMIT_API: '9' },
      yaml,
    });
    assert.equal(values.httpAddress, '0.0.0.0:3');
    assert.equal(sources.httpAddress, 'flag');
    assert.equal(values.rateLimitApi, 9);
    assert.equal(sources.rateLimitApi, 'env');
    assert.equal(values.accessUrl, 'https://yaml.example.com');
    assert.equal(sources.accessUrl, 'yaml');
  });

  it('names the source of a bad value', () => {
    assert.throws(
      () => resolveOptions({ env: { COVE_SESSION_DURATION: 'soon' } }),
      (error: unknown) => {
        assert.ok(error instanceof OptionError);
        assert.match(error.message, /COVE_SESSION_DURATION: "soon" is not a duration/);
        return true;
      },
    );
    assert.throws(() => resolveOptions({ flags: { accessUrl: 'ftp://x' } }), /--access-url/);
    assert.throws(() => resolveOptions({ yaml: { rate_limit: { api: 'lots' } } }), /rate_limit\.api/);
    assert.throws(() => resolveOptions({ yaml: ['not', 'a', 'mapping'] }), OptionError);
  });

  it('declares every setting once, with a flag, a COVE_ variable and a description', () => {
    const flags = new Set<string>();
    const envs = new Set<string>();
    for (const option of OPTION_DEFINITIONS) {
      assert.ok(!flags.has(option.flag), `--${option.flag} declared twice`);
      assert.ok(!envs.has(option.env), `${option.env} declared twice`);
      flags.add(option.flag);
      envs.add(option.env);
      assert.match(option.env, /^COVE_[A-Z0-9_]+$/);
      assert.ok(option.description.length > 10);
    }
  });
});
