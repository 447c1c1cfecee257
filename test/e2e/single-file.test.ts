import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stop, waitFor } from '../helpers/child-process.js';
import { RUN_DATABASE, THE_SQLITE_RUN_COVERS_IT, type TestDatabase, createTestDatabase, serveDatabaseArgs } from '../helpers/databases.js';
import { singleExecutable } from '../helpers/single-executable.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';
import { VERSION } from '../../src/lib/version.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What a machine without Node has on PATH: every command of this one except Node's own. */
function pathWithoutNode(bin: string): string {
  mkdirSync(bin);
  for (const dir of ['/usr/local/sbin', '/usr/sbin', '/sbin', '/usr/bin', '/bin']) {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      if (/^(node|nodejs|npm|npx|corepack)$/.test(name) || existsSync(join(bin, name))) continue;
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  return bin;
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Pids of the processes running `file` whose first argument is `command`. */
function processesOf(file: string, command: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return readlinkSync(`/proc/${pid}/exe`) === file && argv[1] === command;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('the single executable, alone in an empty directory on a machine without Node', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  const root = mkdtempSync(join(tmpdir(), 'cove-single-file-'));
  const cove = join(root, 'cove');
  const env = {
    PATH: join(root, 'path'),
    HOME: join(root, 'home'),
    COVE_SECRET_STORE: 'file',
    LANG: 'C.UTF-8',
  };
  const run = (...args: string[]) => {
    const result = spawnSync(cove, args, { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
    return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  };
  let server: ChildProcess | undefined;
  let database: TestDatabase | undefined;
  let url = '';

  before(async () => {
    database = await createTestDatabase(RUN_DATABASE);
    copyFileSync(await singleExecutable(), cove);
    spawnSync('chmod', ['755', cove]);
    mkdirSync(env.HOME);
    pathWithoutNode(env.PATH);
  });

  after(async () => {
    if (server !== undefined && url !== '') run('delete', 'dev', '-y');
    await stop(server);
    for (const pid of processesOf(cove, 'agent')) process.kill(pid, 'SIGKILL');
    await database?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it('has no Node on PATH and no node_modules above it', () => {
    assert.notEqual(spawnSync('sh', ['-c', 'command -v node'], { env }).status, 0, 'node is on PATH');
    for (let dir = root; dir !== dirname(dir); dir = dirname(dir)) assert.ok(!existsSync(join(dir, 'node_modules')), `${dir}/node_modules`);
    const version = run('--version');
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout.trim(), VERSION);
  });

  it('runs a plain command from its fast part alone, with the code cache it carries; any other from the full CLI', () => {
    const loaded = (...args: string[]) => {
      const result = spawnSync(cove, args, { cwd: root, env: { ...env, COVE_DEBUG_SINGLE_EXECUTABLE: '1' }, encoding: 'utf8' });
      return result.stderr
        .split('\n')
        .filter((line) => line.startsWith('cove: loading '))
        .map((line) => line.slice('cove: loading '.length));
    };
    for (const command of [['whoami'], ['ls'], ['templates', 'list']])
      assert.deepEqual(
        loaded(...command, '--url', 'http://127.0.0.1:1', '--token', 'x'),
        ['fast-part.cjs, with its code cache'],
        command.join(' '),
      );
    assert.deepEqual(loaded('serve', '--help'), [
      'fast-part.cjs, with its code cache',
      'main-part.cjs, with its code cache',
      // A module of the full CLI is looked for in the client part first.
      'client-part.cjs, with its code cache',
      'lazy-part.cjs, with its code cache',
    ]);
  });

  const servesWith =
    RUN_DATABASE === 'postgres'
      ? 'PostgreSQL, no database file of its own'
      : 'the embedded database, its native addons written once to a private cache';
  it(`serves with ${servesWith}`, async () => {
    const args = [
      'serve',
      '--http-address',
      '127.0.0.1:0',
      '--data-dir',
      join(root, 'data'),
      ...serveDatabaseArgs(database ?? assert.fail()),
    ];
    server = spawn(cove, args, {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await waitFor(server, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
    if (RUN_DATABASE === 'postgres') {
      assert.ok(!existsSync(join(root, 'data', 'cove.db')));
      return;
    }
    const cache = join(env.HOME, '.cache', 'cove', VERSION);
    assert.equal(statSync(cache).mode & 0o777, 0o700);
    assert.ok(existsSync(join(cache, 'better_sqlite3.node')));
    assert.ok(existsSync(join(root, 'data', 'cove.db')));
  });

  it('signs in, pushes the local-shell example, creates a workspace and runs a command in it over SSH', () => {
    const login = run(
      'login',
      url,
      '--first-user-email',
      'a@example.com',
      '--first-user-username',
      'admin',
      '--first-user-password',
      STRONG_PASSWORD,
    );
    assert.equal(login.code, 0, login.stderr);
    const init = run('templates', 'init', '--id', 'local-shell', 't');
    assert.equal(init.code, 0, init.stderr);
    const push = run('templates', 'push', 't', '-y');
    assert.equal(push.code, 0, push.stderr);
    const create = run('create', 'dev', '--template', 't', '-y');
    assert.equal(create.code, 0, create.stderr);
    const ssh = run('ssh', 'dev', '--', 'echo', 'hello');
    assert.equal(ssh.code, 0, ssh.stderr);
    assert.equal(ssh.stdout, 'hello\n');
  });

  it('opens a terminal in the workspace, through node-pty loaded from the cache', () => {
    // `script` gives the CLI a terminal, so it asks the agent for one; the shell computes the marker
    // so that the echo of the typed line cannot match.
    const result = spawnSync('script', ['-qec', `${cove} ssh dev`, '/dev/null'], {
      cwd: root,
      env: { ...env, TERM: 'xterm' },
      input: 'echo PTY-$((40+2)) $(tty); exit\n',
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.match(result.stdout, /PTY-42 \/dev\/pts\/\d+/, result.stderr);
    assert.ok(existsSync(join(env.HOME, '.cache', 'cove', VERSION, 'pty.node')));
  });

  it('draws the health report with ink on a terminal, from the ES module it carries', () => {
    // `script` leaves the terminal without a size; ink lays out for the width it is given.
    const result = spawnSync('script', ['-qec', `stty cols 120 rows 40; ${cove} health report`, '/dev/null'], {
      cwd: root,
      env: { ...env, TERM: 'xterm' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /\u001b\[32m✔ \u001b\[39m\u001b\[1mProvisioner daemons/, result.stdout);
    assert.ok(existsSync(join(env.HOME, '.cache', 'cove', VERSION, 'health-report-view.mjs')));
  });

  it('runs the workspace agent from the same file', () => {
    const agents = processesOf(cove, 'agent');
    assert.equal(agents.length, 1, `agents running ${cove}: ${agents.join(', ')}`);
  });

  it('serves the web dashboard and the app icons from inside itself', async () => {
    const page = await fetch(`${url}/workspaces`, { headers: { accept: 'text/html' } });
    // What `npm run build` left in dist/web when the executable was packaged; without it, the page saying so.
    const built = join(ROOT, 'dist', 'web', 'index.html');
    if (!existsSync(built)) {
      assert.equal(page.status, 503);
      assert.match(await page.text(), /npm run build/);
    } else {
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.equal(html, readFileSync(built, 'utf8'));
      const asset = /["'](\/assets\/[^"']+\.(?:js|css))["']/.exec(html)?.[1];
      assert.ok(asset !== undefined, `no asset named in ${html}`);
      const answer = await fetch(`${url}${asset}`);
      assert.equal(answer.status, 200, asset);
      assert.equal(answer.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.deepEqual(Buffer.from(await answer.arrayBuffer()), readFileSync(join(ROOT, 'dist', 'web', asset)));
    }
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const icon = await fetch(`${url}/icon/terminal.svg`);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
    assert.match(await icon.text(), /^<svg /);
    assert.equal((await fetch(`${url}/icon/no-such-icon.svg`)).status, 404);
  });

  it('serves itself as the agent download for its architecture', async () => {
    const arch = process.arch === 'x64' ? 'amd64' : 'arm64';
    const answer = await fetch(`${url}/bin/cove-linux-${arch}`);
    assert.equal(answer.status, 200);
    const body = Buffer.from(await answer.arrayBuffer());
    assert.equal(createHash('sha256').update(body).digest('hex'), sha256(cove));
  });
});
