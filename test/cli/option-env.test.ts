import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe("command options' COVE_ variables: the variable sets the option, the flag wins over it", () => {
  let test: TestDaemon;
  let owner: CoveClient;
  const user = new CliUser();
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    const login = await user.run('login', test.url, '--token', owner.token ?? '');
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => test.close());

  const tokenNames = async () => (await owner.listTokens()).map((token) => token.token_name).sort();

  it('COVE_TOKEN_NAME names the token; --name wins over it', async () => {
    const withEnv = user.withEnv({ COVE_TOKEN_NAME: 'from-env' });
    assert.equal((await withEnv.run('tokens', 'create', '--lifetime', '1h')).code, 0);
    assert.equal((await withEnv.run('tokens', 'create', '--lifetime', '1h', '--name', 'from-flag')).code, 0);
    assert.deepEqual(await tokenNames(), ['from-env', 'from-flag']);
  });

  it('a boolean variable must say true: COVE_SSH_STDIO=false leaves it off', async () => {
    // Nothing to connect to either way; the option is read before the workspace is looked up.
    const on = await user.withEnv({ COVE_SSH_STDIO: 'true' }).run('ssh', '-e', 'A=1', 'dev');
    assert.match(on.stderr, /not to --stdio/);
    const off = await user.withEnv({ COVE_SSH_STDIO: 'false' }).run('ssh', '-e', 'A=1', 'dev');
    assert.doesNotMatch(off.stderr, /not to --stdio/);
  });

  it('help and docs name the variable', async () => {
    const help = await user.run('tokens', 'create', '--help');
    assert.match(help.stdout, /--name <name>[\s\S]*\(env:\s+COVE_TOKEN_NAME\)/);
    const ssh = await user.run('ssh', '--help');
    // Repeatable options have theirs too.
    assert.match(ssh.stdout, /--env <KEY=VALUE>[\s\S]*\(env:\s+COVE_SSH_ENV\)/);
    assert.match((await user.run('port-forward', '--help')).stdout, /--tcp <mapping>[\s\S]*\(env:\s+COVE_PORT_FORWARD_TCP\)/);
    assert.match(ssh.stdout, /env:\s+COVE_SSH_DISABLE_AUTOSTART/);
  });
});
