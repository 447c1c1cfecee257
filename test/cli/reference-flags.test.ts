import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli/main.js';
import type { User } from '../../src/sdk/wire/index.js';
import { CliUser, type CliResult } from '../helpers/run-cli.js';
import { startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

/** Shells beyond bash are checked when installed. */
const HAS: Readonly<Record<string, boolean>> = Object.fromEntries(
  ['zsh', 'fish'].map((shell) => [shell, spawnSync(shell, ['-c', 'exit 0']).status === 0]),
);

const ECHO = { apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }] } };
const NO_AGENTS = { apply: { resources: [{ name: 'box', type: 'echo' }] } };

/** Runs the CLI on a pretend terminal that answers each prompt with the next of `answers`. */
async function runOnTerminal(user: CliUser, answers: readonly string[], ...args: string[]): Promise<CliResult & { asked: number }> {
  let stdout = '';
  let stderr = '';
  const collect = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        append(chunk.toString('utf8'));
        done();
      },
    });
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const queue = [...answers];
  let asked = 0;
  stdin.on('resume', () => {
    asked++;
    const answer = queue.shift();
    if (answer !== undefined) setImmediate(() => stdin.write(`${answer}\r`));
  });
  const code = await main(['node', 'cove', ...args], {
    stdout: collect((text) => (stdout += text)),
    stderr: collect((text) => (stderr += text)),
    stdin,
    env: { COVE_CONFIG_DIR: user.configDir, COVE_SECRET_STORE: 'file' },
  });
  return { code, stdout, stderr, asked };
}

describe('reference-compatible flags and script output', () => {
  let test: TestDaemon;
  const admin = new CliUser();
  const work = mkdtempSync(join(tmpdir(), 'cove-reference-flags-'));

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '2' } });
    await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
    mkdirSync(join(work, 'echo'));
    writeFileSync(join(work, 'echo', 'echo.json'), JSON.stringify(ECHO));
    assert.equal((await admin.run('templates', 'push', join(work, 'echo'), '-y')).code, 0);
    mkdirSync(join(work, 'bare'));
    writeFileSync(join(work, 'bare', 'echo.json'), JSON.stringify(NO_AGENTS));
    assert.equal((await admin.run('templates', 'push', join(work, 'bare'), '-y')).code, 0);
    const created = await admin.run('create', 'dev', '--template', 'echo', '-y');
    assert.equal(created.code, 0, created.stderr);
  });
  after(async () => {
    await test.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('takes -y/--yes on stop, start, restart and update, and asks before stop and restart on a terminal', async () => {
    const declined = await runOnTerminal(admin, ['n'], 'stop', 'dev');
    assert.equal(declined.code, 1);
    assert.equal(declined.asked, 1);
    assert.match(declined.stderr, /Stop workspace "dev"\? \[y\/N\][\s\S]*Canceled: nothing was stopped/);
    const stopped = await runOnTerminal(admin, [], 'stop', 'dev', '-y');
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(stopped.asked, 0, 'no question with -y');
    assert.match(stopped.stdout, /is stopped/);
    const started = await admin.run('start', 'dev', '--yes');
    assert.equal(started.code, 0, started.stderr);
    const restarted = await runOnTerminal(admin, ['y'], 'restart', 'dev');
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.equal(restarted.asked, 1);
    assert.equal((await admin.run('restart', 'dev', '-y')).code, 0);
    const update = await admin.run('update', 'dev', '-y');
    assert.equal(update.code, 0, update.stderr);
    assert.match(update.stdout, /already on the active version/);
  });

  it('ssh starts a stopped workspace first, with the build on stderr, unless --disable-autostart', async () => {
    assert.equal((await admin.run('create', 'bare-ws', '--template', 'bare', '-y')).code, 0);
    assert.equal((await admin.run('stop', 'bare-ws', '-y')).code, 0);
    const refused = await admin.run('ssh', 'bare-ws', '--disable-autostart', '--', 'true');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Workspace "bare-ws" is stopped\.\nhint: Start it/);
    // The workspace has no agent to reach, but it is started before that is found out.
    const started = await admin.run('ssh', 'bare-ws', '--', 'true');
    assert.equal(started.code, 1);
    assert.equal(started.stdout, '', 'stdout is left to the session');
    assert.match(
      started.stderr,
      /Workspace "bare-ws" is stopped; starting it\.\.\.[\s\S]*Workspace "bare-ws" is running\.\nerror: Workspace "bare-ws" has no agents/,
    );
    const shown = await admin.run('show', 'bare-ws', '-o', 'json');
    assert.equal((JSON.parse(shown.stdout) as { latest_build: { status: string } }).latest_build.status, 'running');
    const badWait = await admin.run('ssh', 'bare-ws', '--wait', 'maybe');
    assert.match(badWait.stderr, /--wait takes yes, no or auto/);
  });

  it('generates a password for a new user when none is given, prints it once, and includes it under -o json', async () => {
    const made = await admin.run('users', 'create', '--email', 'bob@example.com', '--username', 'bob');
    assert.equal(made.code, 0, made.stderr);
    const password = /^Password: (\S+)$/m.exec(made.stdout)?.[1] ?? '';
    assert.ok(password.length >= 20, made.stdout);
    assert.match(made.stdout, /shown only once: hand it to bob over a secure channel/);
    const bob = new CliUser();
    const login = await bob.run('login', test.url, '--email', 'bob@example.com', '--password', password);
    assert.equal(login.code, 0, login.stderr);

    const json = await admin.run('users', 'create', '--email', 'carol@example.com', '--username', 'carol', '-o', 'json');
    assert.equal(json.code, 0, json.stderr);
    const carol = JSON.parse(json.stdout) as User & { password?: string };
    assert.equal(carol.username, 'carol');
    assert.ok((carol.password ?? '').length >= 20);
    const given = await admin.run('users', 'create', '--email', 'dan@example.com', '--username', 'dan', '--password', STRONG_PASSWORD);
    assert.doesNotMatch(given.stdout, /Password:/);
  });

  it('refuses "users roles" without roles unless --clear is given', async () => {
    const refused = await admin.run('users', 'roles', 'bob');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /error: No roles given for "bob"\.\nhint: .*--clear/);
    assert.equal((await admin.run('users', 'roles', 'bob', 'auditor')).code, 0);
    const cleared = await admin.run('users', 'roles', 'bob', '--clear', '-o', 'json');
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.deepEqual((JSON.parse(cleared.stdout) as User).roles, []);
  });

  it("runs the README's CI token recipe with default settings, and says a too long lifetime once with the cap and the setting", async () => {
    // The README's recipe, word for word.
    assert.equal((await admin.run('users', 'create', '--username', 'ci', '--email', 'ci@example.com', '--login-type', 'none')).code, 0);
    assert.equal((await admin.run('users', 'roles', 'ci', 'template-admin')).code, 0);
    const ci = await admin.run('tokens', 'create', '--user', 'ci', '--name', 'ci', '--lifetime', '720h');
    assert.equal(ci.code, 0, ci.stderr);
    const asCi = await new CliUser({ COVE_URL: test.url, COVE_SESSION_TOKEN: ci.stdout.trim() }).run('templates', 'list');
    assert.equal(asCi.code, 0, asCi.stderr);
    // The --help examples work too.
    const help = await admin.run('tokens', 'create', '--help');
    const examples = [...help.stdout.matchAll(/^ {2}\$ cove (.+)$/gm)].map((match) => match[1] ?? '');
    assert.ok(examples.length >= 2, help.stdout);
    for (const example of examples) {
      const result = await admin.run(...example.split(' '), '-o', 'json');
      assert.equal(result.code, 0, `${example}: ${result.stderr}`);
    }

    const refused = await admin.run('tokens', 'create', '--lifetime', '720h');
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'error: A token lifetime of 720h is longer than your tokens may live: at most 168h.\n' +
        'hint: Ask for --lifetime 168h or less; the deployment sets the cap with --max-admin-token-lifetime ' +
        '(COVE_MAX_ADMIN_TOKEN_LIFETIME), which caps the tokens of owners. Or create the token for a user who is not an owner, e.g. a CI user: --user ci.\n',
    );
    const forMember = await admin.run('tokens', 'create', '--user', 'ci', '--lifetime', '1000000h');
    assert.match(forMember.stderr, /at most 876600h\.\nhint: .*--max-token-lifetime \(COVE_MAX_TOKEN_LIFETIME\)\.\n$/);
    assert.equal((await admin.run('tokens', 'create', '--lifetime', '7d')).code, 0);
  });

  it('shows the columns -c names, in that order, lists them in --help, and refuses unknown ones', async () => {
    const listed = await admin.run('list', '-c', 'status,workspace', '-c', 'id');
    assert.equal(listed.code, 0, listed.stderr);
    const [heading, ...rows] = listed.stdout.split('\n');
    assert.match(heading ?? '', /^STATUS +WORKSPACE +ID$/);
    assert.ok(
      rows.some((row) => /^running +dev +[0-9a-f-]{36}$/.test(row)),
      listed.stdout,
    );
    const users = await admin.run('users', 'list', '--column', 'username,last seen');
    assert.match(users.stdout.split('\n')[0] ?? '', /^USERNAME +LAST SEEN$/);
    const show = await admin.run('users', 'show', 'me', '-c', 'login type');
    assert.equal(show.stdout, 'LOGIN TYPE\npassword\n');
    const tokens = await admin.run('tokens', 'list', '-c', 'name,owner');
    assert.match(tokens.stdout, /^NAME +OWNER\n/);
    const json = await admin.run('list', '-c', 'id', '-o', 'json');
    assert.ok(
      (JSON.parse(json.stdout) as { name?: string; latest_build?: unknown }[]).every((w) => w.name && w.latest_build),
      'JSON keeps whole objects',
    );

    const unknown = await admin.run('list', '-c', 'workspace,colour');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^error: Unknown column "colour"\.\nhint: Valid columns: workspace, template, status, .*, id, owner/);
    const help = await admin.run('templates', 'list', '--help');
    assert.match(
      help.stdout.replace(/\s+/g, ' '),
      /-c, --column <columns> Columns to show, .*from: name, "display name", .*"active version id"/,
    );
    for (const args of [
      ['users', 'list'],
      ['orgs', 'members', 'list'],
      ['templates', 'versions', 'list'],
      ['provisioner', 'keys', 'list'],
      ['port', 'list'],
    ]) {
      assert.match((await admin.run(...args, '--help')).stdout, /--column/, args.join(' '));
    }
  });

  it('writes bash completion from the command table that completes commands, subcommands and options', async () => {
    const script = await admin.run('completion', 'bash');
    assert.equal(script.code, 0, script.stderr);
    const file = join(work, 'cove.bash');
    writeFileSync(file, script.stdout);
    const complete = (...words: string[]): string[] => {
      const words_ = words.map((word) => `'${word}'`).join(' ');
      const result = spawnSync(
        'bash',
        [
          '--norc',
          '--noprofile',
          '-c',
          `source '${file}' && complete -p cove && COMP_WORDS=(${words_}) && COMP_CWORD=${words.length - 1} && _cove && printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(result.status, 0, result.stderr);
      const [registration = '', ...replies] = result.stdout.trim().split('\n');
      assert.equal(registration, 'complete -o default -F _cove cove');
      return replies;
    };
    assert.deepEqual(complete('cove', 'te'), ['templates']);
    assert.deepEqual(complete('cove', 'templates', 'ver'), ['versions']);
    // An alias leads to the same subcommands, and options of the command come with the global ones.
    assert.deepEqual(complete('cove', 'template', 'versions', 'pro'), ['promote']);
    assert.deepEqual(complete('cove', '--url', 'http://x', 'port-forward', 'dev', '--u'), ['--udp', '--url']);
    assert.deepEqual(complete('cove', 'ls', '-o', ''), ['table', 'json']);

    for (const shell of ['zsh', 'fish']) {
      const other = await admin.run('completion', shell);
      assert.equal(other.code, 0, other.stderr);
      writeFileSync(join(work, `cove.${shell}`), other.stdout);
      if (HAS[shell])
        assert.equal(spawnSync(shell, ['-n', join(work, `cove.${shell}`)], { encoding: 'utf8' }).status, 0, `${shell} reads it`);
    }
    if (HAS['fish']) {
      // fish completes for real from the script: `complete -C` prints what TAB would offer.
      const fish = (line: string) =>
        spawnSync('fish', ['--no-config', '-c', `source '${join(work, 'cove.fish')}'; complete -C '${line}'`], { encoding: 'utf8' })
          .stdout.trim()
          .split('\n')
          .map((entry) => entry.split('\t')[0]);
      assert.deepEqual(fish('cove te'), ['templates']);
      assert.deepEqual(fish('cove template versions pro'), ['promote']);
      assert.deepEqual(fish('cove ls -o '), ['json', 'table']);
    }
    const unknown = await admin.run('completion', 'tcsh');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Choose one of: bash, zsh, fish/);
  });
});
