import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import packageJson from '../../package.json' with { type: 'json' };
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { expectApiError, rawRequest } from '../helpers/expect-api-error.js';
import type { CoveClient } from '../../src/sdk/client.js';

describe('general and deployment endpoints', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  before(async () => {
    test = await startTestDaemon({
      flags: { accessUrl: 'https://cove.example.com', postgresUrl: '', sshConfigOptions: 'ForwardAgent=yes' },
      env: { COVE_RATE_LIMIT_API: '100' },
    });
    owner = await createOwner(test);
    member = await createMember(test, 'member');
  });
  after(async () => test.close());

  it('serves build info with the package version and a deployment id that survives restarts', async () => {
    const info = await test.anonymous.buildInfo();
    assert.equal(info.version, packageJson.version);
    assert.equal(info.external_url, 'https://cove.example.com');
    assert.match(info.deployment_id, /^[0-9a-f-]{36}$/);
    assert.ok(info.agent_api_version);
    assert.ok(info.provisioner_api_version);
  });

  it('answers the root and the update check without a session', async () => {
    const root = await test.anonymous.request<{ message: string }>('GET', '/');
    assert.match(root.message, /Cove/);
    // Update checks are off by default: no feed was asked, so the running version is the newest known
    // (test/api/update-check has a daemon that asks one).
    assert.deepEqual(await test.anonymous.updateCheck(), { current: true, version: packageJson.version, url: '' });
  });

  it('serves the deployment config to owners, with sources and secrets redacted', async () => {
    const { config, options } = await owner.deploymentConfig();
    assert.equal(config['access_url'], 'https://cove.example.com');
    assert.deepEqual(config['rate_limit'], { api: 100, disable_all: false });
    const lifetimes = config['session_lifetime'] as Record<string, unknown>;
    assert.equal(lifetimes['default_duration'], 24 * 3600 * 1e9);
    const byFlag = new Map(options.map((o) => [o.flag, o]));
    assert.equal(byFlag.get('rate-limit-api')?.value_source, 'env');
    assert.equal(byFlag.get('rate-limit-api')?.env, 'COVE_RATE_LIMIT_API');
    assert.equal(byFlag.get('access-url')?.value_source, 'flag');
    assert.equal(byFlag.get('session-duration')?.value_source, 'default');
    const pg = byFlag.get('postgres-url');
    assert.equal(pg?.annotations?.['secret'], 'true');
    assert.equal(pg?.value, '');
    for (const flag of [
      'http-address',
      'access-url',
      'data-dir',
      'postgres-url',
      'provisioner-daemons',
      'rate-limit-api',
      'session-duration',
      'max-token-lifetime',
      'swagger-enable',
      'verbose',
    ]) {
      assert.ok(byFlag.has(flag), `missing option --${flag}`);
    }
  });

  it('refuses the deployment config to a plain member with 403', async () => {
    const error = await expectApiError(member.deploymentConfig(), 403);
    assert.equal(error.message, 'Forbidden.');
  });

  it('serves SSH settings and experiments to any signed-in user', async () => {
    const ssh = await member.deploymentSsh();
    assert.equal(ssh.hostname_prefix, 'cove.');
    assert.deepEqual(ssh.ssh_config_options, { ForwardAgent: 'yes' });
    assert.deepEqual(await member.experiments(), []);
    assert.deepEqual(await member.availableExperiments(), { safe: [] });
    await expectApiError(test.anonymous.experiments(), 401);
  });

  it('accepts CSP reports from signed-in browsers', async () => {
    await owner.reportCsp({ 'document-uri': 'https://cove.example.com/', 'violated-directive': 'script-src' });
    await expectApiError(test.anonymous.reportCsp({}), 401);
  });

  it('sets the build version and request id headers on every answer', async () => {
    const response = await rawRequest(test.url, 'GET', '/buildinfo', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(response.headers.get('x-cove-build-version'), packageJson.version);
    assert.equal(response.headers.get('x-request-id'), 'trace-123');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  });
});
