import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { nameRuleError } from '../../src/rbac/custom-role-rules.js';
import { STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** bin/cove on a terminal of its own: what it printed since the last answer, and typing answers. */
class Terminal {
  #output = '';
  #seen = 0;
  readonly exited: Promise<number>;
  readonly #terminal: pty.IPty;

  constructor(args: readonly string[]) {
    const env = { COVE_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'cove-sign-up-')), COVE_SECRET_STORE: 'file' };
    const { CI: _ci, ...rest } = process.env;
    this.#terminal = pty.spawn(COVE, [...args], { cols: 120, rows: 30, env: { ...rest, ...env } });
    this.#terminal.onData((data) => (this.#output += data));
    this.exited = new Promise((resolvePromise) => this.#terminal.onExit(({ exitCode }) => resolvePromise(exitCode)));
  }

  /** Waits until what was printed since the last wait matches `pattern`, and returns that part. */
  async expect(pattern: RegExp): Promise<string> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const fresh = this.#output.slice(this.#seen);
      const match = pattern.exec(fresh);
      if (match) {
        this.#seen += match.index + match[0].length;
        return fresh.slice(0, match.index + match[0].length);
      }
      if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in:\n${fresh}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  answer(text: string): void {
    this.#terminal.write(`${text}\r`);
  }

  get output(): string {
    return this.#output;
  }
}

describe('cove login on a new deployment: prompts ask again instead of ending', () => {
  let test: TestDaemon;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '0' } });
  });
  after(async () => test.close());

  it('re-asks a bad email, username and weak or mismatched password, and offers the system user name', async () => {
    const terminal = new Terminal(['login', test.url]);
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
