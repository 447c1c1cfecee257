import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { freePort } from '../helpers/free-port.js';
import { REPOSITORY_ROOT } from '../helpers/repository-root.js';

// Someone with a fresh clone follows the README: every shell command of its quick start and of its
// CLI section runs, in order, with bash, in a clone of HEAD, and must succeed. The commands come
// from the README itself, so the test follows it as it changes; the few that cannot run as written
// in a test are listed below with the reason and what runs instead.

const ROOT = REPOSITORY_ROOT;

/** The README sections whose shell blocks are run, in this order. */
const SECTIONS = ['Quick start', 'Using the CLI'];

/** What the test does with a command it cannot run as written. */
type Handling =
  | { readonly kind: 'skip' }
  | { readonly kind: 'background-serve' }
  | { readonly kind: 'until-interrupted'; readonly localPort: number }
  | { readonly kind: 'rewrite'; readonly rewrite: (command: string) => string };

interface SpecialCommand {
  readonly command: RegExp;
  readonly handling: Handling;
  readonly reason: string;
}

const SPECIAL_COMMANDS: readonly SpecialCommand[] = [
  {
    command: /^npm install && bin\/cove serve\b/,
    handling: { kind: 'background-serve' },
    reason:
      'npm install takes minutes: the clone gets the repository’s node_modules and the build its prepare script runs; ' +
      'bin/cove serve runs in the background for the whole test, on a free port (COVE_HTTP_ADDRESS) as other tests may hold 3000',
  },
  { command: /^npm test\b/, handling: { kind: 'skip' }, reason: 'it runs the whole suite, this test included' },
  {
    command: /^bin\/cove config-ssh -y && ssh cove\./,
    handling: {
      kind: 'rewrite',
      rewrite: (command) =>
        command
          .replace('config-ssh', 'config-ssh --ssh-config-file "$HOME/.ssh/config"')
          .replace(/\bssh cove\./, 'ssh -F "$HOME/.ssh/config" cove.')
          // Without a terminal, the login shell reads standard input: empty, so it exits at once.
          .concat(' < /dev/null'),
    },
    reason:
      'OpenSSH and config-ssh use the passwd entry’s home directory, not $HOME: both are pointed at the test’s home ' +
      'so the machine’s ~/.ssh/config is left alone',
  },
  {
    command: /^bin\/cove port-forward dev --tcp 18080:8080\b/,
    handling: { kind: 'until-interrupted', localPort: 18080 },
    reason: 'it forwards until Ctrl+C: it must accept a connection on its local port, then stop cleanly on SIGINT',
  },
];

/** A command without its trailing `# comment`. */
const withoutComment = (command: string): string => command.replace(/\s+#\s.*$/, '');

/** The shell commands of a README section, continuation lines joined, blank lines dropped. */
function shellCommands(readme: string, section: string): string[] {
  const lines = readme.split('\n');
  const start = lines.indexOf(`## ${section}`);
  assert.ok(start >= 0, `the README has a "## ${section}" section`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  const commands: string[] = [];
  let fence: string | undefined;
  let pending = '';
  for (const line of lines.slice(start + 1, end < 0 ? undefined : end)) {
    const opening = /^(`{3,}|~{3,})\s*(\w*)/.exec(line);
    if (fence === undefined) {
      if (opening) fence = ['sh', 'bash', 'shell', 'console'].includes(opening[2] ?? '') ? (opening[1] ?? '') : `skip:${opening[1]}`;
      continue;
    }
    if (line.trim() === fence.replace(/^skip:/, '')) {
      fence = undefined;
      continue;
    }
    if (fence.startsWith('skip:')) continue;
    pending += line;
    if (pending.endsWith('\\')) pending = `${pending.slice(0, -1)} `;
    else {
      if (pending.trim() !== '') commands.push(pending.trim());
      pending = '';
    }
  }
  return commands;
}

function waitForOutput(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${seen}`)), timeoutMs);
    const look = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1] ?? match[0]);
      }
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${seen}`));
    });
  });
}

/** How a child ended: its exit code, or the signal that killed it. */
function exited(child: ChildProcess): Promise<number | NodeJS.Signals | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode);
  return new Promise((done) => child.once('exit', (code, signal) => done(code ?? signal)));
}

describe('the README, followed on a fresh clone', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cove-readme-'));
  const clone = join(scratch, 'cove');
  const home = join(scratch, 'home');
  let env: Record<string, string>;
  let url = '';
  let server: ChildProcess | undefined;
  /** The port forward while it runs, stopped by `after` when an assertion failed before it was. */
  let forwarding: ChildProcess | undefined;

  before(() => {
    execFileSync('git', ['clone', '--quiet', '--local', ROOT, clone]);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    execFileSync('git', ['checkout', '--quiet', '--detach', head], { cwd: clone });
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: clone, stdio: 'pipe' });
    // The CI recipe says `cove`, as installed: here it is the clone's bin/cove on the PATH.
    const bin = join(scratch, 'bin');
    mkdirSync(bin);
    symlinkSync(join(clone, 'bin', 'cove'), join(bin, 'cove'));
    mkdirSync(home);
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('COVE_') && !key.startsWith('XDG_')),
    );
    env = {
      ...(inherited as Record<string, string>),
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
      HOME: home,
      COVE_CONFIG_DIR: join(home, '.config', 'cove'),
      // The file store, so the machine's keychain never receives the test's tokens.
      COVE_SECRET_STORE: 'file',
    };
  });

  after(async () => {
    if (forwarding) {
      forwarding.kill('SIGKILL');
      await exited(forwarding);
    }
    if (server) {
      // After a failure, workspaces the README did not get to delete: their agents outlive the daemon.
      const list = spawnSync(join(clone, 'bin', 'cove'), ['list', '--all', '-o', 'json'], { cwd: clone, env, encoding: 'utf8' });
      const left = list.status === 0 ? (JSON.parse(list.stdout) as { owner_name: string; name: string }[]) : [];
      for (const workspace of left) {
        spawnSync(join(clone, 'bin', 'cove'), ['delete', `${workspace.owner_name}/${workspace.name}`, '-y'], {
          cwd: clone,
          env,
          timeout: 30_000,
        });
      }
      server.kill('SIGTERM');
      await exited(server);
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  it('runs every command of the quick start and of the CI recipe, and they do what it says', { timeout: 90_000 }, async () => {
    const readme = readFileSync(join(clone, 'README.md'), 'utf8');
    const commands = SECTIONS.flatMap((section) => shellCommands(readme, section));
    assert.ok(commands.length >= 10, `the README's commands: ${commands.join('\n')}`);
    const used = new Set<SpecialCommand>();
    const outputs = new Map<string, string>();
    let port = 0;

    for (const written of commands) {
      const special = SPECIAL_COMMANDS.find((entry) => entry.command.test(written));
      if (special) used.add(special);
      // The README's address, rewritten to the port the daemon got.
      const command = withoutComment(port ? written.replaceAll('http://127.0.0.1:3000', url) : written);
      const handling = special?.handling;
      if (handling?.kind === 'skip') continue;

      if (handling?.kind === 'background-serve') {
        port = await freePort();
        url = `http://127.0.0.1:${port}`;
        server = spawn('bash', ['-c', `exec ${command.replace(/^npm install && /, '')}`], {
          cwd: clone,
          env: { ...env, COVE_HTTP_ADDRESS: `127.0.0.1:${port}` },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        await waitForOutput(server, /cove is listening url=(\S+)/, 'bin/cove serve');
        continue;
      }

      if (handling?.kind === 'until-interrupted') {
        const child = spawn('bash', ['-c', `exec ${command}`], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
        forwarding = child;
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        await waitForOutput(child, /^Forwarding tcp .*$/m, command);
        await new Promise<void>((done, fail) => {
          const socket = connect(handling.localPort, '127.0.0.1', () => {
            socket.destroy();
            done();
          });
          socket.once('error', fail);
        });
        child.kill('SIGINT');
        assert.equal(await exited(child), 0, `${command} after Ctrl+C:\n${output}`);
        continue;
      }

      const run = handling?.kind === 'rewrite' ? handling.rewrite(command) : command;
      const result = spawnSync('bash', ['-c', run], {
        cwd: clone,
        env,
        encoding: 'utf8',
        timeout: 60_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      assert.equal(result.status, 0, `${run}\nexited ${result.status ?? result.signal}:\n${result.stdout}${result.stderr}`);
      outputs.set(written, result.stdout);
    }

    for (const special of SPECIAL_COMMANDS) {
      assert.ok(used.has(special), `the README no longer has the command ${special.command}: update the list of special commands`);
    }

    // What the README promises of them.
    const output = (pattern: RegExp) => {
      const found = [...outputs].find(([command]) => pattern.test(command));
      assert.ok(found, `the README runs a command like ${pattern}`);
      return found[1];
    };
    const login = commands.find((command) => command.startsWith('bin/cove login '));
    const firstUser = /--first-user-username (\S+)/.exec(login ?? '')?.[1];
    assert.ok(firstUser, 'the quick start signs in with --first-user-username');
    assert.equal((JSON.parse(output(/^bin\/cove whoami -o json/)) as { username: string }).username, firstUser);
    const [, workspace = '', template = ''] =
      /^bin\/cove create (\S+) --template (\S+)/.exec(commands.find((c) => c.startsWith('bin/cove create ')) ?? '') ?? [];
    assert.match(output(/^bin\/cove ls\b/), new RegExp(`^${workspace} +${template} +running `, 'm'), 'the workspace reached running');
    assert.equal(output(/^bin\/cove ssh \S+ -- echo hello/), 'hello\n');

    // The CI token: the job gets it as COVE_URL and COVE_SESSION_TOKEN, with no saved session.
    const token = output(/^cove tokens create --user ci\b/).trim();
    assert.match(token, /^[A-Za-z0-9]{10}-[A-Za-z0-9]{22}$/, 'tokens create prints the token alone');
    const job = spawnSync('bash', ['-c', 'cove whoami -o json'], {
      cwd: scratch,
      env: { ...env, COVE_CONFIG_DIR: join(scratch, 'ci-job-config'), COVE_URL: url, COVE_SESSION_TOKEN: token },
      encoding: 'utf8',
    });
    assert.equal(job.status, 0, job.stderr);
    const ci = JSON.parse(job.stdout) as { username: string; roles: { name: string }[] };
    assert.equal(ci.username, 'ci');
    assert.deepEqual(
      ci.roles.map((role) => role.name),
      ['template-admin'],
    );
    const tokens = spawnSync('bash', ['-c', 'cove tokens list -o json'], {
      cwd: scratch,
      env: { ...env, COVE_CONFIG_DIR: join(scratch, 'ci-job-config'), COVE_URL: url, COVE_SESSION_TOKEN: token },
      encoding: 'utf8',
    });
    assert.equal(tokens.status, 0, tokens.stderr);
    const [ciToken] = JSON.parse(tokens.stdout) as { token_name: string; expires_at: string }[];
    const lifetimeHours = (Date.parse(ciToken?.expires_at ?? '') - Date.now()) / 3_600_000;
    assert.ok(lifetimeHours > 719 && lifetimeHours <= 720, `--lifetime 720h: the token expires in ${lifetimeHours}h`);
  });
});
