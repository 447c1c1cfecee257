import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nameRuleError } from '../../src/rbac/custom-role-rules.js';
import { CliTerminal } from '../helpers/cli-terminal.js';
import { STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('cove login on a new deployment: prompts ask again instead of ending', () => {
  let test: TestDaemon;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '0' } });
  });
  after(async () => test.close());

  it('re-asks a bad email, username and weak or mismatched password, and offers the system user name', async () => {
    const terminal = new CliTerminal(mkdtempSync(join(tmpdir(), 'cove-sign-up-')), ['login', test.url]);
    await terminal.expect(/Email: /);
    terminal.answer('');
    await terminal.expect(/An email address is required\.[\s\S]*Email: /);
    terminal.answer('not-an-email');
    await terminal.expect(/"not-an-email" is not an email address\.[\s\S]*Email: /);
    terminal.answer('first@example.com');

    const system = userInfo().username;
    const offered = nameRuleError(system) === undefined;
    await terminal.expect(offered ? new RegExp(`Username \\(${system}\\): `) : /Username: /);
    terminal.answer('not_valid!');
    await terminal.expect(/"not_valid!" is not a valid username: 1 to 32 letters or digits[\s\S]*Username/);
    // An empty answer takes the offered name; without one, it is asked again.
    terminal.answer('');
    if (!offered) {
      await terminal.expect(/A username is required[\s\S]*Username: /);
      terminal.answer('first');
    }
    const username = offered ? system : 'first';

    await terminal.expect(/Password: /);
    terminal.answer('weak');
    await terminal.expect(/insecure password[\s\S]*Password: /);
    terminal.answer(STRONG_PASSWORD);
    await terminal.expect(/Confirm password: /);
    terminal.answer(`${STRONG_PASSWORD}x`);
    await terminal.expect(/The passwords do not match; type the password again\.[\s\S]*Password: /);
    terminal.answer(STRONG_PASSWORD);
    await terminal.expect(/Confirm password: /);
    terminal.answer(STRONG_PASSWORD);

    await terminal.expect(new RegExp(`Welcome to Cove, ${username}!`));
    assert.equal(await terminal.exited, 0, terminal.output);
    // The typed password was never echoed.
    assert.doesNotMatch(terminal.output, new RegExp(STRONG_PASSWORD));
    const session = await test.anonymous.login('first@example.com', STRONG_PASSWORD);
    assert.equal((await test.anonymous.withToken(session.session_token).user('me')).username, username);
  });
});
