import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gitAskpassProgram, sessionEnvironment } from '../../src/agent/index.js';
import { isGitAskpassCall, parseGitAskpassPrompt } from '../../src/cli/git-askpass-prompt.js';

const manifest = { environment_variables: {}, workspace_name: 'dev', owner_username: 'alice', agent_name: 'main' };

describe('cove as git askpass', () => {
  it('tells a prompt from git apart from a person running cove', () => {
    const git = { GIT_PREFIX: '' };
    assert.equal(isGitAskpassCall(["Username for 'https://github.com': "], git), true);
    assert.equal(isGitAskpassCall(["Password for 'https://x@github.com': "], git), true);
    // Without GIT_PREFIX git did not start it; with more arguments it is a command line.
    assert.equal(isGitAskpassCall(["Username for 'https://github.com': "], {}), false);
    assert.equal(isGitAskpassCall(['Username', 'x'], git), false);
    assert.equal(isGitAskpassCall(['ls'], git), false);
    assert.equal(isGitAskpassCall([], git), false);
  });

  it('reads the remote and the user out of the prompt', () => {
    assert.deepEqual(parseGitAskpassPrompt("Username for 'https://github.com': "), {
      kind: 'username',
      user: '',
      remote: 'https://github.com',
    });
    assert.deepEqual(parseGitAskpassPrompt("Password for 'http://oauth2@127.0.0.1:8123': "), {
      kind: 'password',
      user: 'oauth2',
      remote: 'http://127.0.0.1:8123',
    });
    // Quoted the way editors' askpass helpers quote it.
    assert.equal(parseGitAskpassPrompt('Username for "https://gitlab.example.com:" ')?.remote, 'https://gitlab.example.com');
    assert.equal(parseGitAskpassPrompt("Username for 'ssh://github.com': "), undefined);
    assert.equal(parseGitAskpassPrompt("Passphrase for 'https://github.com': "), undefined);
    assert.equal(parseGitAskpassPrompt('Username for'), undefined);
  });

  it("points every session's GIT_ASKPASS at cove, over the agent's own but under the template's", () => {
    const base = { manifest, agentUrl: 'http://cove.test', agentToken: 't' };
    const ours = sessionEnvironment({ ...base, processEnv: { GIT_ASKPASS: '/usr/share/code/askpass.sh' }, gitAskpass: '/opt/cove' });
    assert.equal(ours['GIT_ASKPASS'], '/opt/cove');
    const template = sessionEnvironment({
      ...base,
      manifest: { ...manifest, environment_variables: { GIT_ASKPASS: '/usr/bin/my-askpass' } },
      processEnv: {},
      gitAskpass: '/opt/cove',
    });
    assert.equal(template['GIT_ASKPASS'], '/usr/bin/my-askpass');
    assert.equal(sessionEnvironment({ ...base, processEnv: {} })['GIT_ASKPASS'], undefined);
  });

  it('names the bin/cove the agent was started with as the askpass program, absolute', () => {
    assert.equal(gitAskpassProgram('/srv/cove/bin/cove'), '/srv/cove/bin/cove');
    assert.equal(gitAskpassProgram('bin/cove'), `${process.cwd()}/bin/cove`);
    assert.equal(gitAskpassProgram(''), undefined);
  });
});
