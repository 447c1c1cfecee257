import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { stop, waitFor } from '../helpers/child-process.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { COVE_BIN } from '../helpers/repository-root.js';
import { TerminalUser, type ServeProcess } from '../helpers/terminal-user.js';
import { eventually as eventuallyWithin } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';

const HAS_OPENSSH = spawnSync('ssh', ['-V']).status === 0;

/** The CLI and processes are slow to poll: wait longer, less often. */
const eventually = <T>(check: () => T | Promise<T>, timeoutMs = 30_000): Promise<T> => eventuallyWithin(check, timeoutMs, 200);

type ShownAgent = { id: string; name: string; status: string; lifecycle_state: string };
type Shown = { health: { healthy: boolean; failing_agents: string[] }; latest_build: { resources: { agents: ShownAgent[] }[] } };

describe('terminals, SSH and port forwarding into a local-shell workspace with bin/cove', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  const user = new TerminalUser('ssh');
  const { root, env } = user;
  const cove = (...args: string[]) => user.cove(...args);
  const shown = () => JSON.parse(cove('show', 'dev', '-o', 'json').stdout) as Shown;
  const agentOf = () => {
    const agent = shown().latest_build.resources.flatMap((r) => r.agents)[0];
    assert.ok(agent, 'the workspace has an agent');
    return agent;
  };
  let serve: ServeProcess | undefined;
  let url = '';
  const children: ChildProcess[] = [];

  before(async () => {
    serve = await user.serve();
    url = serve.url;
    user.signUpFirstUser(url);
    assert.equal(cove('templates', 'init', '--id', 'local-shell', 't').code, 0);
    assert.equal(cove('templates', 'push', 't', '-y').code, 0);
    const create = cove('create', 'dev', '--template', 't', '-y');
    assert.equal(create.code, 0, create.stderr);
    await eventually(() => {
      const agent = agentOf();
      assert.equal(`${agent.status}/${agent.lifecycle_state}`, 'connected/ready');
    });
  });

  after(async () => {
    for (const child of children) await stop(child);
    cove('delete', 'dev', '-y');
    await serve?.close();
    user.remove();
  });

  it('runs commands over SSH through the relay, with their output and exit codes', () => {
    const hello = cove('ssh', 'dev', '--', 'echo', 'hello');
    assert.equal(hello.stdout, 'hello\n', hello.stderr);
    assert.equal(hello.code, 0);
    const failing = cove('ssh', 'dev', '--', 'echo oops >&2; exit 3');
    assert.equal(failing.code, 3);
    assert.equal(failing.stderr, 'oops\n');
    const whereAmI = cove('ssh', 'dev', '--', 'echo $COVE_WORKSPACE_NAME');
    assert.equal(whereAmI.stdout.trim(), 'dev');
    const ping = cove('ping', 'dev', '-n', '2', '--interval', '0', '-o', 'json');
    assert.equal(ping.code, 0, ping.stderr);
    assert.equal((JSON.parse(ping.stdout) as { pings: number }).pings, 2);
  });

  it('gives an interactive shell with a terminal, and its exit code', async () => {
    // A real terminal on our side: cove sees a TTY and asks the agent for a PTY.
    const { spawn: spawnPty } = await import('node-pty');
    const terminal = spawnPty(process.execPath, [COVE_BIN, 'ssh', 'dev'], {
      cols: 100,
      rows: 30,
      env: { ...process.env, ...env, TERM: 'xterm-256color' } as Record<string, string>,
    });
    let output = '';
    terminal.onData((data) => (output += data));
    const exited = new Promise<number>((resolve) => terminal.onExit(({ exitCode }) => resolve(exitCode)));
    try {
      terminal.write('tty >/dev/null && echo "on-a-tty $(stty size)"\r');
      await eventually(() => assert.match(output, /on-a-tty 30 100/));
      // The new size travels as a signal to cove, then a window change to the agent: ask until it lands.
      terminal.resize(120, 40);
      await eventually(async () => {
        terminal.write('stty size\r');
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.match(output, /40 120/);
      });
      terminal.write('exit 5\r');
      assert.equal(await exited, 5);
    } finally {
      // A failed step must not leave the terminal's process holding the test run open.
      terminal.kill();
    }
  });

  it('lets the system ssh reach the workspace after config-ssh', { skip: !HAS_OPENSSH && 'OpenSSH is not installed' }, () => {
    const config = join(root, 'ssh_config');
    const dry = cove('config-ssh', '--ssh-config-file', config, '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Host cove\.\*/);
    assert.equal(cove('config-ssh', '--ssh-config-file', config, '-y').code, 0);
    const written = readFileSync(config, 'utf8');
    assert.match(cove('config-ssh', '--ssh-config-file', config, '-y').stdout, /up to date/);
    assert.equal(readFileSync(config, 'utf8'), written, 'running it again changes nothing');
    const ssh = spawnSync('ssh', ['-F', config, 'cove.dev', 'echo', 'hello'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(ssh.stdout, 'hello\n', ssh.stderr);
    assert.equal(ssh.status, 0);
    // scp speaks SFTP to the agent's SSH server, through the same ProxyCommand.
    const local = join(root, 'to-copy.txt');
    writeFileSync(local, 'copied through the relay\n');
    const scp = spawnSync('scp', ['-F', config, local, 'cove.dev:copied.txt'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(scp.status, 0, scp.stderr);
    assert.equal(cove('ssh', 'dev', '--', 'cat copied.txt').stdout, 'copied through the relay\n');
  });

  it('forwards a local port to a server started in the workspace', async () => {
    const remote = await freePort();
    const local = await freePort();
    const http = spawn(COVE_BIN, ['ssh', 'dev', '--', `exec python3 -m http.server ${remote} --bind 127.0.0.1`], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(http);
    const forward = spawn(COVE_BIN, ['port-forward', 'dev', '--tcp', `${local}:${remote}`], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(forward);
    try {
      await waitFor(forward, 'stderr', /Forwarding/, 'cove port-forward');
      const page = await eventually(async () => {
        const response = await fetch(`http://127.0.0.1:${local}/`);
        assert.equal(response.status, 200);
        return response.text();
      });
      assert.match(page, /Directory listing/);
    } finally {
      // Ending the SSH session ends the server in the workspace (a later test kills the agent itself).
      await stop(forward);
      await stop(http);
    }
  });

  it('echoes a typed command in the web terminal', async () => {
    const token = user.savedToken(url);
    const socket = new WebSocket(
      `${url.replace(/^http/, 'ws')}/api/v2/workspaceagents/${agentOf().id}/pty?reconnect=${randomUUID()}&width=80&height=24`,
      {
        headers: { 'Service-Session-Token': token },
      },
    );
    let output = '';
    socket.on('message', (data) => (output += data.toString()));
    await new Promise((r, j) => socket.once('open', r).once('error', j));
    socket.send(JSON.stringify({ data: 'echo typed-$((6*7))\r' }));
    await eventually(() => assert.match(output, /typed-42/));
    socket.close();
  });

  it('marks a killed agent disconnected and the workspace unhealthy, and a stopped one off', async () => {
    const agentPid = Number(cove('ssh', 'dev', '--', 'echo $PPID').stdout.trim());
    assert.ok(agentPid > 1, 'the shell knows its agent');
    const { id } = agentOf();
    process.kill(agentPid, 'SIGKILL');
    await eventually(() => assert.equal(agentOf().status, 'disconnected'), 40_000);
    const workspace = shown();
    assert.equal(workspace.health.healthy, false);
    assert.deepEqual(workspace.health.failing_agents, [id]);

    assert.match(cove('restart', 'dev').stdout, /is running/);
    await eventually(() => assert.equal(agentOf().lifecycle_state, 'ready'));
    const running = agentOf();
    assert.match(cove('stop', 'dev').stdout, /is stopped/);
    const stopped = JSON.parse(cove('--url', url, 'show', 'dev', '-o', 'json').stdout) as Shown;
    assert.equal(stopped.latest_build.resources.flatMap((r) => r.agents).length, 0);
    const token = user.savedToken(url);
    const old = (await (
      await fetch(`${url}/api/v2/workspaceagents/${running.id}`, { headers: { 'Service-Session-Token': token } })
    ).json()) as ShownAgent;
    assert.equal(old.lifecycle_state, 'off');
  });
});
