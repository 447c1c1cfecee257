import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandPath, sessionEnvironment } from '../../src/agent/index.js';

const manifest = {
  environment_variables: { EDITOR: 'vim', COVE_AGENT_TOKEN: 'smuggled' },
  workspace_name: 'dev',
  owner_username: 'alice',
  agent_name: 'main',
};

describe('session environment', () => {
  it("adds the template variables and the COVE_ facts, with the agent's current token whatever else claims the name", () => {
    const env = sessionEnvironment({
      processEnv: { PATH: '/bin', COVE_AGENT_TOKEN: 'from-the-start', HOME: '/home/alice', USER: 'alice', SHELL: '/bin/bash' },
      manifest,
      agentUrl: 'http://cove.test',
      agentToken: 'current',
    });
    assert.deepEqual(
      { ...env },
      {
        PATH: '/bin',
        HOME: '/home/alice',
        USER: 'alice',
        SHELL: '/bin/bash',
        EDITOR: 'vim',
        COVE: 'true',
        COVE_WORKSPACE_NAME: 'dev',
        COVE_WORKSPACE_OWNER_NAME: 'alice',
        COVE_WORKSPACE_AGENT_NAME: 'main',
        COVE_AGENT_URL: 'http://cove.test',
        COVE_AGENT_TOKEN: 'current',
      },
    );
  });

  it('fills HOME, USER and SHELL when the agent has none', () => {
    const env = sessionEnvironment({ processEnv: {}, manifest, agentUrl: 'http://cove.test', agentToken: 'current' });
    assert.ok(env['HOME']);
    assert.ok(env['SHELL']);
  });

  it('expands ~ and variables in paths', () => {
    assert.equal(expandPath('~/src/$PROJECT/${SUB}x', { HOME: '/home/a', PROJECT: 'cove', SUB: 'web' }), '/home/a/src/cove/webx');
    assert.equal(expandPath('~', { HOME: '/home/a' }), '/home/a');
    assert.equal(expandPath('/opt/$MISSING/x', {}), '/opt//x');
  });
});
