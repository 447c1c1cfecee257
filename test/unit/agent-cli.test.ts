import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CliUser } from '../helpers/run-cli.js';

describe('cove agent', () => {
  it('exits 1 naming COVE_AGENT_URL and COVE_AGENT_TOKEN when they are missing', async () => {
    const result = await new CliUser().run('agent');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /COVE_AGENT_URL/);
    assert.match(result.stderr, /COVE_AGENT_TOKEN/);
  });

  it('names the missing token when only the URL is set', async () => {
    const result = await new CliUser({ COVE_AGENT_URL: 'http://127.0.0.1:1' }).run('agent');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /COVE_AGENT_TOKEN is not set/);
  });
});
