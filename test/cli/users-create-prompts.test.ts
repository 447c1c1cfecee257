import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoveClient } from '../../src/sdk/client.js';
import { CliTerminal } from '../helpers/cli-terminal.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('cove users create asks for what is not given on a terminal', () => {
  let test: TestDaemon;
  let client: CoveClient;
  const admin = new CliUser();

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '0' } });
    await admin.signUpFirstUser(test.url, { email: 'admin@example.com', username: 'admin' });
    client = new CoveClient({ url: test.url, token: admin.savedToken() });
  });
  after(async () => test.close());

  it('asks again after a bad username, email or weak password, and generates a password on an empty answer', async () => {
    const terminal = new CliTerminal(admin.configDir, ['users', 'create']);
    await terminal.expect(/Username: /);
    terminal.answer('not_valid!');
    await terminal.expect(/"not_valid!" is not a valid username: 1 to 32 letters or digits[\s\S]*Username: /);
    terminal.answer('carol');
    await terminal.expect(/Email: /);
    terminal.answer('carol-at-example');
    await terminal.expect(/"carol-at-example" is not an email address\.[\s\S]*Email: /);
    terminal.answer('carol@example.com');
    await terminal.expect(/Full name \(optional\): /);
    terminal.answer('Carol Example');
    await terminal.expect(/Password \(empty: generate one\): /);
    terminal.answer('short');
    await terminal.expect(/insecure password[\s\S]*Password \(empty: generate one\): /);
    terminal.answer('');
    assert.equal(await terminal.exited, 0, terminal.output);
    const [, generated] = /Password: (\S+)/.exec(terminal.output.slice(terminal.output.lastIndexOf('USERNAME'))) ?? [];
    assert.ok(generated, terminal.output);
    assert.doesNotMatch(terminal.output, /short/, 'a typed password is never shown');

    const carol = await client.user('carol');
    assert.equal(carol.email, 'carol@example.com');
    assert.equal(carol.name, 'Carol Example');
    assert.equal((await new CoveClient({ url: test.url }).login('carol@example.com', generated)).session_token.length > 0, true);
  });

  it('names the missing flags, without asking, when there is no terminal', async () => {
    const started = Date.now();
    const result = await admin.run('users', 'create', '--email', 'dave@example.com');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cove users create needs --username \(there is no terminal to ask on\)/);
    assert.match(result.stderr, /--username NAME --email dave@example\.com/);
    const both = await admin.run('users', 'create');
    assert.match(both.stderr, /needs --username and --email/);
    assert.ok(Date.now() - started < 10_000);
  });
});
