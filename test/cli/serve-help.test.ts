import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CliUser } from '../helpers/run-cli.js';

describe('cove serve --help', () => {
  it('lists every setting by group, with its environment variable and default', async () => {
    const result = await new CliUser().run('serve', '--help');
    assert.equal(result.code, 0);
    assert.match(result.stdout, /Networking:/);
    assert.match(result.stdout, /--http-address <value>/);
    assert.match(result.stdout, /env: COVE_HTTP_ADDRESS, default: 127\.0\.0\.1:3000/);
    assert.match(result.stdout, /--postgres-url <value>/);
    assert.match(result.stdout, /--session-duration <value>[\s\S]*default: 24h0m0s/);
    assert.doesNotMatch(result.stdout, /--dangerous-disable-rate-limits/, 'hidden options stay hidden');
  });

  it('refuses a bad setting with a message naming it', async () => {
    const result = await new CliUser().run('serve', '--session-duration', 'later', '--http-address', '127.0.0.1:0');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /--session-duration: "later" is not a duration/);
  });
});
