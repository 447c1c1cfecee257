import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import ssh2 from 'ssh2';
import type { ClientChannel, ConnectConfig, SFTPWrapper, Client as SshClient } from 'ssh2';
import { silentLogger, type AgentLogger } from '../../src/agent/agent-logger.js';
import { createAgentSshServer, type AgentSshServer } from '../../src/agent/ssh/agent-ssh-server.js';
import { loginShell } from '../../src/agent/login-shell.js';
import { generateEd25519KeyPair } from '../../src/lib/ssh-key-pair.js';

const { Client, utils } = ssh2;

interface Harness {
  readonly server: AgentSshServer;
  readonly directory: string;
  readonly port: number;
  readonly warnings: string[];
  stop(): Promise<void>;
}

/** An agent SSH server behind a net server on 127.0.0.1:0, as the relay would feed it. */
async function startHarness(): Promise<Harness> {
  const directory = realpathSync(mkdtempSync(join(tmpdir(), 'cove-ssh-')));
  const warnings: string[] = [];
  const logger: AgentLogger = {
    info: () => undefined,
    warn: (fields, message) => warnings.push(`${message} ${JSON.stringify(fields)}`),
    error: (fields, message) => warnings.push(`${message} ${JSON.stringify(fields)}`),
  };
  const server = createAgentSshServer({
    directory,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: directory, SHELL: '/bin/sh', LANG: 'C', COVE_WORKSPACE_NAME: 'dev' },
    logger,
  });
  const listener: Server = createServer((socket) => server.accept(socket));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as AddressInfo).port;
  return {
    server,
    directory,
    port,
    warnings,
    async stop() {
      server.close();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

const clients: SshClient[] = [];

function connectClient(config: ConnectConfig): Promise<SshClient> {
  const client = new Client();
  clients.push(client);
  return new Promise((resolve, reject) => {
    client.once('ready', () => resolve(client));
    client.once('error', reject);
    // ssh2 stops its ready timer when the connection closes, without an error: without this, a
    // connection the server drops during the handshake would leave the test waiting for ever.
    client.once('close', () => reject(new Error('the connection closed before it was ready')));
    client.connect({ host: '127.0.0.1', username: 'alice', readyTimeout: 5000, ...config });
  });
}

interface ExecResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  readonly signal: string | undefined;
}

/** Open sessions of every kind. */
function total(server: AgentSshServer): number {
  const counts = server.sessionCounts;
  return counts.ssh + counts.vscode + counts.jetbrains;
}

function exec(client: SshClient, command: string, options: { env?: Record<string, string>; stdin?: string } = {}): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    client.exec(command, options.env ? { env: options.env } : {}, (err, channel) => {
      if (err) return reject(err);
      let stdout = '';
      let stderr = '';
      let code: number | null = null;
      let signal: string | undefined;
      channel.on('data', (data: Buffer) => (stdout += data.toString()));
      channel.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
      channel.on('exit', (exitCode: number | null, exitSignal?: string) => {
        code = exitCode;
        signal = exitSignal;
      });
      channel.on('close', () => resolve({ stdout, stderr, code, signal }));
      if (options.stdin !== undefined) channel.end(options.stdin);
    });
  });
}

async function waitFor(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Awaits `promise`, failing the test instead of hanging when it never settles. */
async function within<T>(what: string, promise: Promise<T>, timeoutMs = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function openSftp(client: SshClient): Promise<SFTPWrapper> {
  return new Promise((resolve, reject) => client.sftp((err, sftp) => (err ? reject(err) : resolve(sftp))));
}

/** Promisifies one SFTP client call. */
function call<T = void>(run: (done: (err: Error | null | undefined, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((err, value) => (err ? reject(err) : resolve(value as T))));
}

/** Two cross-wired plain duplexes: what a relay hands over, with nothing of net.Socket. */
function duplexPair(): [Duplex, Duplex] {
  const sides: Duplex[] = [];
  const make = (peer: () => Duplex): Duplex =>
    new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, callback) {
        if (!peer().destroyed) peer().push(chunk);
        callback();
      },
      final(callback) {
        if (!peer().destroyed) peer().push(null);
        callback();
      },
      destroy(err, callback) {
        if (!peer().destroyed) peer().destroy();
        callback(err);
      },
    });
  sides.push(
    make(() => sides[1] as Duplex),
    make(() => sides[0] as Duplex),
  );
  return [sides[0] as Duplex, sides[1] as Duplex];
}

function run(file: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('agent SSH server', () => {
  let harness: Harness;
  let client: SshClient;

  before(async () => {
    harness = await startHarness();
    client = await connectClient({ port: harness.port });
  });

  after(async () => {
    for (const each of clients) each.end();
    await harness.stop();
  });

  it('runs exec commands in the agent directory and reports the exit code', async () => {
    const hello = await exec(client, 'echo hello');
    assert.deepEqual(hello, { stdout: 'hello\n', stderr: '', code: 0, signal: undefined });
    assert.equal((await exec(client, 'pwd')).stdout, `${harness.directory}\n`);
    assert.equal((await exec(client, 'exit 3')).code, 3);
  });

  it('gives sessions the agent environment plus the env the client sends', async () => {
    const result = await exec(client, 'echo "$COVE_WORKSPACE_NAME $FOO ${SSH_CONNECTION:+ssh}"', { env: { FOO: 'bar' } });
    assert.equal(result.stdout, 'dev bar ssh\n');
  });

  it('keeps stderr apart and forwards stdin up to EOF', async () => {
    const split = await exec(client, 'echo out; echo err >&2');
    assert.equal(split.stdout, 'out\n');
    assert.equal(split.stderr, 'err\n');
    const cat = await exec(client, 'cat; echo done', { stdin: 'piped input\n' });
    assert.equal(cat.stdout, 'piped input\ndone\n');
    assert.equal(cat.code, 0);
  });

  it('reports a signal death as exit-signal', async () => {
    const result = await exec(client, 'kill -TERM $$');
    assert.equal(result.code, null);
    // The wire carries "TERM"; ssh2's client puts the SIG prefix back.
    assert.equal(result.signal, 'SIGTERM');
  });

  it('runs a login shell in a PTY, resizes it and ends on exit', async () => {
    const channel = await new Promise<ClientChannel>((resolve, reject) =>
      client.shell({ term: 'xterm-256color', cols: 80, rows: 24 }, (err, stream) => (err ? reject(err) : resolve(stream))),
    );
    let output = '';
    let code: number | undefined;
    channel.on('data', (data: Buffer) => (output += data.toString()));
    channel.on('exit', (exitCode: number) => (code = exitCode));
    const closed = new Promise<void>((resolve) => channel.on('close', () => resolve()));
    // The echoed input holds "$((20+22))", never "pty-42": seeing it proves the shell ran it.
    channel.write('echo pty-$((20+22)) $TERM\n');
    await waitFor('the shell output', () => output.includes('pty-42 xterm-256color'));
    channel.setWindow(30, 100, 0, 0);
    channel.write('stty size | sed "s/^/size-/"\n');
    await waitFor('the new size', () => output.includes('size-30 100'));
    channel.write('exit\n');
    await within('the shell channel to close', closed);
    assert.equal(code, 0);
    assert.match(output, /pty-42/);
  });

  it('counts open sessions and kills the process when the channel closes', async () => {
    assert.equal(total(harness.server), 0);
    const channel = await new Promise<ClientChannel>((resolve, reject) =>
      client.exec('echo $$; exec sleep 30', (err, stream) => (err ? reject(err) : resolve(stream))),
    );
    let output = '';
    channel.on('data', (data: Buffer) => (output += data.toString()));
    await waitFor('the pid', () => /^\d+\n/.test(output));
    const pid = Number(output.trim());
    assert.ok(alive(pid));
    assert.deepEqual(harness.server.sessionCounts, { ssh: 1, vscode: 0, jetbrains: 0 });
    // An editor says what its session is for; the stats count it apart.
    const editor = await new Promise<ClientChannel>((resolve, reject) =>
      client.exec('exec sleep 30', { env: { COVE_SSH_SESSION_TYPE: 'vscode' } }, (err, stream) => (err ? reject(err) : resolve(stream))),
    );
    await waitFor('the editor session', () => harness.server.sessionCounts.vscode === 1);
    editor.close();
    channel.close();
    await waitFor('the process to die', () => !alive(pid));
    await waitFor('the session count to drop', () => total(harness.server) === 0);
  });

  it('kills a process that ignores SIGHUP after the grace, and hangs up PTY sessions too', async () => {
    const stubborn = await new Promise<ClientChannel>((resolve, reject) =>
      client.exec('trap "" HUP; echo $$; exec sleep 30', (err, stream) => (err ? reject(err) : resolve(stream))),
    );
    const terminal = await new Promise<ClientChannel>((resolve, reject) =>
      client.exec('echo $$; exec sleep 30', { pty: true }, (err, stream) => (err ? reject(err) : resolve(stream))),
    );
    const pids: number[] = [];
    for (const channel of [stubborn, terminal]) {
      let output = '';
      channel.on('data', (data: Buffer) => (output += data.toString()));
      await waitFor('the pid', () => /^\d+\r?\n/.test(output));
      pids.push(Number(output.trim()));
    }
    const [stubbornPid, terminalPid] = pids as [number, number];
    stubborn.close();
    terminal.close();
    await waitFor('the PTY process to die', () => !alive(terminalPid));
    assert.ok(alive(stubbornPid), 'SIGHUP alone does not stop it');
    await waitFor('the SIGKILL', () => !alive(stubbornPid));
  });

  it('starts sessions in $HOME when the agent directory does not exist yet', async () => {
    const own = createAgentSshServer({
      directory: join(harness.directory, 'not-cloned-yet'),
      env: { PATH: process.env['PATH'] ?? '/bin', HOME: harness.directory, SHELL: '/bin/sh' },
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    const [agentSide, clientSide] = duplexPair();
    own.accept(agentSide);
    const user = await connectClient({ sock: clientSide as unknown as ConnectConfig['sock'] });
    const result = await exec(user, 'pwd');
    assert.equal(result.stdout, `${harness.directory}\n`);
    assert.match(result.stderr, /not-cloned-yet/);
    assert.equal(result.code, 0);
    own.close();
  });

  it('serves SFTP: write, read, stat, readdir, rename, links, modes, unlink', async () => {
    const sftp = await openSftp(client);
    assert.equal(total(harness.server), 1, 'an SFTP subsystem is a session');
    const content = Buffer.from('sftp content\n'.repeat(10_000));
    await call((done) => sftp.writeFile('notes.txt', content, done));
    assert.deepEqual(readFileSync(join(harness.directory, 'notes.txt')), content, 'relative paths resolve from the agent directory');
    assert.deepEqual(await call<Buffer>((done) => sftp.readFile('notes.txt', done)), content);
    const stats = await call<{ size: number; isFile(): boolean }>((done) => sftp.stat('notes.txt', done));
    assert.equal(stats.size, content.length);
    assert.ok(stats.isFile());
    assert.equal(await call<string>((done) => sftp.realpath('.', done)), harness.directory);

    await call((done) => sftp.mkdir('sub', done));
    await call((done) => sftp.rename('notes.txt', 'sub/renamed.txt', done));
    await assert.rejects(
      call((done) => sftp.stat('notes.txt', done)),
      (err: { code?: number }) => err.code === utils.sftp.STATUS_CODE.NO_SUCH_FILE,
    );
    writeFileSync(join(harness.directory, 'sub', 'other.txt'), 'x');
    await assert.rejects(
      call((done) => sftp.rename('sub/other.txt', 'sub/renamed.txt', done)),
      'rename never replaces an existing file',
    );
    const list = await call<{ filename: string; longname: string }[]>((done) => sftp.readdir('sub', done));
    assert.deepEqual(list.map((entry) => entry.filename).sort(), ['other.txt', 'renamed.txt']);
    assert.match(list.find((entry) => entry.filename === 'renamed.txt')?.longname ?? '', /^-rw.* renamed\.txt$/);

    await call((done) => sftp.symlink('renamed.txt', 'sub/link', done));
    assert.equal(await call<string>((done) => sftp.readlink('sub/link', done)), 'renamed.txt');
    assert.ok((await call<{ isSymbolicLink(): boolean }>((done) => sftp.lstat('sub/link', done))).isSymbolicLink());
    await call((done) => sftp.chmod('sub/renamed.txt', 0o600, done));
    await call((done) => sftp.utimes('sub/renamed.txt', 1_000_000, 2_000_000, done));
    const changed = await call<{ mode: number; mtime: number }>((done) => sftp.stat('sub/renamed.txt', done));
    assert.equal(changed.mode & 0o777, 0o600);
    assert.equal(changed.mtime, 2_000_000);

    for (const name of ['sub/link', 'sub/renamed.txt', 'sub/other.txt']) await call((done) => sftp.unlink(name, done));
    await call((done) => sftp.rmdir('sub', done));
    assert.equal(existsSync(join(harness.directory, 'sub')), false);
    await assert.rejects(
      call((done) => sftp.readdir('missing', done)),
      (err: { code?: number }) => err.code === utils.sftp.STATUS_CODE.NO_SUCH_FILE,
    );
    sftp.end();
    await waitFor('the SFTP session to end', () => total(harness.server) === 0);
  });

  it('forwards -L connections to a TCP server inside the workspace and refuses dead ports', async () => {
    const echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const echoPort = (echo.address() as AddressInfo).port;
    try {
      const channel = await new Promise<ClientChannel>((resolve, reject) =>
        client.forwardOut('127.0.0.1', 5000, '127.0.0.1', echoPort, (err, stream) => (err ? reject(err) : resolve(stream))),
      );
      let received = '';
      channel.on('data', (data: Buffer) => (received += data.toString()));
      channel.write('ping through -L');
      await waitFor('the echo', () => received === 'ping through -L');
      channel.end();

      const unused = createServer();
      await new Promise<void>((resolve) => unused.listen(0, '127.0.0.1', resolve));
      const deadPort = (unused.address() as AddressInfo).port;
      await new Promise<void>((resolve) => unused.close(() => resolve()));
      await assert.rejects(
        new Promise((resolve, reject) =>
          client.forwardOut('127.0.0.1', 5000, '127.0.0.1', deadPort, (err, stream) => (err ? reject(err) : resolve(stream))),
        ),
      );
      assert.equal((await exec(client, 'echo still-up')).stdout, 'still-up\n', 'a refused forward leaves the connection usable');
    } finally {
      echo.close();
    }
  });

  it('listens for -R forwards, reports port 0 and hands connections back to the client', async () => {
    const own = await connectClient({ port: harness.port });
    own.on('tcp connection', (_info, accept) => {
      const channel = accept();
      channel.on('data', (data: Buffer) => channel.write(`back:${data.toString()}`));
    });
    const port = await call<number>((done) => own.forwardIn('127.0.0.1', 0, done));
    assert.ok(port > 0);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket: Socket = connect(port, '127.0.0.1', () => socket.write('hello -R'));
      socket.on('data', (data) => {
        resolve(data.toString());
        socket.destroy();
      });
      socket.on('error', reject);
    });
    assert.equal(reply, 'back:hello -R');
    own.end();
    // The listener belongs to the connection: it goes when the connection does.
    await waitFor('the listener to close', async () => !(await canConnect(port)));
  });

  it('accepts publickey (with a verified signature) and password logins', async () => {
    // Not ssh2's generateKeyPairSync: about one of its ed25519 keys in 256 is one ssh2 cannot read back.
    const key = generateEd25519KeyPair().privateKey;
    const byKey = await connectClient({
      port: harness.port,
      authHandler: [{ type: 'publickey', username: 'bob', key }] as unknown as ConnectConfig['authHandler'],
    });
    assert.equal((await exec(byKey, 'echo key')).stdout, 'key\n');
    const byPassword = await connectClient({ port: harness.port, password: 'anything', authHandler: ['password'] });
    assert.equal((await exec(byPassword, 'echo pw')).stdout, 'pw\n');
    byKey.end();
    byPassword.end();
  });

  it('works over a plain Duplex pair, not only a net.Socket', async () => {
    const [agentSide, clientSide] = duplexPair();
    harness.server.accept(agentSide);
    const viaDuplex = await connectClient({ sock: clientSide as unknown as ConnectConfig['sock'] });
    assert.deepEqual(await exec(viaDuplex, 'echo hello'), { stdout: 'hello\n', stderr: '', code: 0, signal: undefined });
    const sftp = await openSftp(viaDuplex);
    await call((done) => sftp.writeFile('duplex.txt', 'over a duplex', done));
    assert.equal(readFileSync(join(harness.directory, 'duplex.txt'), 'utf8'), 'over a duplex');
    const channel = await new Promise<ClientChannel>((resolve, reject) =>
      viaDuplex.exec('echo $$; exec sleep 30', (err, stream) => (err ? reject(err) : resolve(stream))),
    );
    let output = '';
    channel.on('data', (data: Buffer) => (output += data.toString()));
    await waitFor('the pid', () => /^\d+\n/.test(output));
    const pid = Number(output.trim());
    // The relay drops the connection without an SSH goodbye: only the end of the stream says so.
    const closed = new Promise<void>((resolve) => agentSide.once('close', () => resolve()));
    clientSide.end();
    await within('the agent side of the stream to close', closed);
    await waitFor('the process to die', () => !alive(pid));
    await waitFor('the session count to drop', () => total(harness.server) === 0);
  });

  it('works with the OpenSSH client', { skip: !existsSync('/usr/bin/ssh') && 'no /usr/bin/ssh' }, async () => {
    const base = [
      '-F',
      '/dev/null',
      '-p',
      String(harness.port),
      '-o',
      'StrictHostKeyChecking=no',
      '-o',
      'UserKnownHostsFile=/dev/null',
      '-o',
      'BatchMode=yes',
      '-o',
      'LogLevel=ERROR',
      '127.0.0.1',
    ];
    const hello = await run('/usr/bin/ssh', [...base, 'echo hello'], harness.directory);
    assert.equal(hello.stderr, '');
    assert.equal(hello.stdout, 'hello\n');
    assert.equal(hello.code, 0);
    assert.equal((await run('/usr/bin/ssh', [...base, 'exit 7'], harness.directory)).code, 7);
  });

  it('works with the OpenSSH sftp client in batch mode', { skip: !existsSync('/usr/bin/sftp') && 'no /usr/bin/sftp' }, async () => {
    const local = realpathSync(mkdtempSync(join(tmpdir(), 'cove-sftp-local-')));
    try {
      const payload = Buffer.alloc(300_000, 'abcdefghij');
      writeFileSync(join(local, 'up.bin'), payload);
      writeFileSync(
        join(local, 'batch'),
        [
          'mkdir remote-dir',
          'put up.bin remote-dir/up.bin',
          'ls -l remote-dir',
          'rename remote-dir/up.bin remote-dir/moved.bin',
          'symlink moved.bin remote-dir/link',
          'get remote-dir/link down.bin',
          '',
        ].join('\n'),
      );
      const result = await run(
        '/usr/bin/sftp',
        [
          '-F',
          '/dev/null',
          '-b',
          'batch',
          '-P',
          String(harness.port),
          '-o',
          'StrictHostKeyChecking=no',
          '-o',
          'UserKnownHostsFile=/dev/null',
          '-o',
          'BatchMode=yes',
          '-o',
          'LogLevel=ERROR',
          '127.0.0.1',
        ],
        local,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /up\.bin/);
      assert.deepEqual(readFileSync(join(harness.directory, 'remote-dir', 'moved.bin')), payload);
      assert.deepEqual(readFileSync(join(local, 'down.bin')), payload);
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  });

  it('ends every connection and session on close', async () => {
    const own = await startHarness();
    try {
      const user = await connectClient({ port: own.port });
      const channel = await within(
        'the exec channel',
        new Promise<ClientChannel>((resolve, reject) =>
          user.exec('echo $$; exec sleep 30', (err, stream) => (err ? reject(err) : resolve(stream))),
        ),
      );
      let output = '';
      channel.on('data', (data: Buffer) => (output += data.toString()));
      await waitFor('the pid', () => /^\d+\n/.test(output));
      const pid = Number(output.trim());
      const gone = new Promise<void>((resolve) => user.once('close', () => resolve()));
      own.server.close();
      await within('the client to see the connection close', gone);
      assert.equal(total(own.server), 0);
      await waitFor('the process to die', () => !alive(pid));
    } finally {
      await own.stop();
    }
  });

  it('starts every time, with a fresh host key ssh2 can read', () => {
    // A key ssh2 cannot read makes the server throw as it is created. ssh2's own ed25519 generator
    // made one in about 256 starts: over 2000 starts, that is all but certain to show.
    for (let start = 0; start < 2000; start++) createAgentSshServer({ directory: tmpdir(), env: {}, logger: silentLogger }).close();
  });

  it('finds the login shell from $SHELL, then passwd, then /bin/sh', () => {
    assert.equal(loginShell({ SHELL: '/bin/zsh' }), '/bin/zsh');
    assert.ok(loginShell({}).startsWith('/'));
  });
});

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
