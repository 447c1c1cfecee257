import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSocket } from 'node:dgram';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { silentLogger, startAgent, type AgentHandle } from '../../src/agent/index.js';
import { eventually } from '../helpers/eventually.js';
import { CliUser } from '../helpers/run-cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const TOKEN = 'agent-token-for-the-connect-commands';

/** Two TCP servers on neighbouring loopback ports; `handler(i)` answers the connections of the i-th. */
async function listenOnNeighbouringPorts(handler: (i: number) => (socket: Socket) => void): Promise<Server[]> {
  const servers: Server[] = [];
  for (let attempt = 0; attempt < 20; attempt++) {
    let base = 0;
    for (let i = 0; i < 2; i++) {
      const server = createServer(handler(i));
      const bound = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(i === 0 ? 0 : base + 1, '127.0.0.1', () => resolve(true));
      });
      if (!bound) break;
      if (i === 0) base = (server.address() as AddressInfo).port;
      servers.push(server);
    }
    if (servers.length === 2) return servers;
    for (const server of servers.splice(0)) server.close();
  }
  throw new Error('found no two neighbouring free ports in 20 attempts');
}

describe('cove ssh, config-ssh, ping and open, in-process against a real agent', () => {
  let test: TestDaemon;
  let agent: AgentHandle | undefined;
  const admin = new CliUser();
  const work = mkdtempSync(join(tmpdir(), 'cove-connect-'));
  const home = join(work, 'home');

  before(async () => {
    mkdirSync(home, { recursive: true });
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    await admin.signUpFirstUser(test.url, { email: 'a@example.com', username: 'admin' });
    // A start script that blocks login: `cove ssh` must wait for it before running anything.
    const echo = {
      apply: {
        resources: [
          {
            name: 'box',
            type: 'echo',
            agents: [
              {
                name: 'main',
                auth_token: TOKEN,
                directory: join(home, 'project'),
                scripts: [
                  { display_name: 'Prepare', script: 'sleep 1; echo prepared > marker', run_on_start: true, start_blocks_login: true },
                ],
                apps: [{ slug: 'web', display_name: 'Web', url: 'http://localhost:8080', share: 'owner' }],
              },
            ],
          },
        ],
      },
    };
    mkdirSync(join(work, 'tpl'));
    writeFileSync(join(work, 'tpl', 'echo.json'), JSON.stringify(echo));
    const pushed = await admin.run('templates', 'push', join(work, 'tpl'), '--name', 'box', '-y');
    assert.equal(pushed.code, 0, pushed.stderr);
    const created = await admin.run('create', 'dev', '--template', 'box', '-y');
    assert.equal(created.code, 0, created.stderr);
    agent = startAgent({
      url: test.url,
      token: TOKEN,
      logger: silentLogger,
      env: { PATH: process.env['PATH'], HOME: home, SHELL: '/bin/sh' },
    });
  });
  after(async () => {
    await agent?.stop();
    await test.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('waits for start scripts that block login, then runs the command with its exit code', async () => {
    const first = await admin.run('ssh', 'dev', '--', 'cat marker');
    assert.equal(first.stdout, 'prepared\n', first.stderr);
    assert.equal(first.code, 0);
    assert.match(first.stderr, /Waiting for the agent "main" of workspace "dev" to (connect|finish its start scripts)/);
    const failing = await admin.run('ssh', 'dev.main', '--', 'exit 4');
    assert.equal(failing.code, 4);
    const unknown = await admin.run('ssh', 'dev.other', '--', 'true');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no agent "other"/);
  });

  it('forwards TCP port ranges (-p) and UDP ports (--udp) through the relay until interrupted', async () => {
    // Two TCP servers that say which one answered, on neighbouring ports, and a UDP echo server.
    const servers = await listenOnNeighbouringPorts((i) => (socket) => socket.end(`server ${i}\n`));
    const base = (servers[0]?.address() as AddressInfo).port;
    // The local range is two neighbouring ports seen free just now, not a guess that may be taken.
    const localServers = await listenOnNeighbouringPorts(() => (socket) => socket.destroy());
    const local = (localServers[0]?.address() as AddressInfo).port;
    await Promise.all(localServers.map((server) => new Promise((resolve) => server.close(resolve))));
    const udpEcho = createSocket('udp4');
    udpEcho.on('message', (data, from) => udpEcho.send(Buffer.concat([Buffer.from('echo '), data]), from.port, from.address));
    await new Promise<void>((resolve) => udpEcho.bind(0, '127.0.0.1', resolve));
    const udpPort = udpEcho.address().port;
    const forward = admin.start(
      'port-forward',
      'dev',
      '-p',
      `0:${base}`,
      '--tcp',
      `${local}-${local + 1}:${base}-${base + 1}`,
      '--udp',
      `0:${udpPort}`,
      '-o',
      'json',
    );
    try {
      const shown = await eventually(() => {
        const { stdout } = forward.output();
        assert.ok(stdout.trim().endsWith('}'), 'the forwards are printed');
        return JSON.parse(stdout) as { forwards: { network: string; local: string; remote_port: number }[] };
      });
      assert.deepEqual(
        shown.forwards.map((f) => [f.network, f.remote_port]),
        [
          ['tcp', base],
          ['tcp', base],
          ['tcp', base + 1],
          ['udp', udpPort],
        ],
      );
      const portOf = (local: string) => Number(local.split(':').at(-1));
      const read = (port: number) =>
        new Promise<string>((resolve, reject) => {
          let text = '';
          connect(port, '127.0.0.1')
            .on('data', (chunk) => (text += chunk.toString()))
            .on('end', () => resolve(text))
            .on('error', reject);
        });
      const [any, first, second, udp] = shown.forwards.map((f) => portOf(f.local));
      assert.equal(await read(any ?? 0), 'server 0\n');
      assert.equal(await read(first ?? 0), 'server 0\n');
      assert.equal(await read(second ?? 0), 'server 1\n');

      const client = createSocket('udp4');
      await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', resolve));
      const answers: string[] = [];
      client.on('message', (data) => answers.push(data.toString()));
      // Datagrams sent while the stream opens wait for it; later ones go straight through.
      client.send('one', udp ?? 0, '127.0.0.1');
      client.send('two', udp ?? 0, '127.0.0.1');
      await eventually(() => assert.deepEqual(answers, ['echo one', 'echo two']));
      client.send('three', udp ?? 0, '127.0.0.1');
      await eventually(() => assert.deepEqual(answers.at(-1), 'echo three'));
      client.close();
    } finally {
      const result = await forward.interrupt();
      for (const server of servers) server.close();
      udpEcho.close();
      assert.equal(result.code, 0, result.stderr);
    }
    const bad = await admin.run('port-forward', 'dev', '-p', '8000-8010:9000-9005');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--tcp "8000-8010:9000-9005" is not a port mapping: the local and remote ranges differ in size/);
  });

  it('passes -e variables, forwards the SSH agent with -A and remote ports with -R', async () => {
    const withEnv = await admin.run('ssh', 'dev', '-e', 'GREETING=hello there', '--env', 'OTHER=2', '--', 'echo "$GREETING/$OTHER"');
    assert.equal(withEnv.stdout, 'hello there/2\n', withEnv.stderr);

    // A stand-in SSH agent: whatever it is asked, it answers "no identities" (SSH2_AGENT_IDENTITIES_ANSWER, 0 keys).
    const agentSocket = join(work, 'agent.sock');
    const requests: string[] = [];
    const fakeAgent = createServer((socket) =>
      socket.on('data', (data) => {
        requests.push(data.toString('hex'));
        socket.write(Buffer.from([0, 0, 0, 5, 12, 0, 0, 0, 0]));
      }),
    );
    await new Promise<void>((resolve) => fakeAgent.listen(agentSocket, resolve));
    // Inside the workspace: ask the forwarded agent for its identities (SSH2_AGENTC_REQUEST_IDENTITIES) and print the answer.
    const ask =
      `${process.execPath} -e "const s = require('net').connect(process.env.SSH_AUTH_SOCK); ` +
      `s.write(Buffer.from([0, 0, 0, 1, 11])); s.once('data', (d) => { console.log(d.toString('hex')); s.end(); })"`;
    try {
      const forwarded = await admin.withEnv({ SSH_AUTH_SOCK: agentSocket }).run('ssh', '-A', 'dev', '--', ask);
      assert.equal(forwarded.stdout, '000000050c00000000\n', forwarded.stderr);
      assert.ok(requests.includes('000000010b'), `the local agent was asked: ${requests.join(',')}`);
      const without = await admin.withEnv({ SSH_AUTH_SOCK: agentSocket }).run('ssh', 'dev', '--', 'echo "[$SSH_AUTH_SOCK]"');
      assert.equal(without.stdout, '[]\n', 'no agent without -A');
      const none = await admin.run('ssh', '-A', 'dev', '--', 'true');
      assert.equal(none.code, 1);
      assert.match(none.stderr, /SSH_AUTH_SOCK is not set/);
    } finally {
      fakeAgent.close();
    }

    const here = createServer((socket) => socket.end('reached the client side\n'));
    await new Promise<void>((resolve) => here.listen(0, '127.0.0.1', resolve));
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const remotePort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    try {
      const dial = `${process.execPath} -e "require('net').connect(${remotePort}, '127.0.0.1').pipe(process.stdout)"`;
      const reversed = await admin.run('ssh', 'dev', '-R', `${remotePort}:127.0.0.1:${(here.address() as AddressInfo).port}`, '--', dial);
      assert.equal(reversed.stdout, 'reached the client side\n', reversed.stderr);
      const bad = await admin.run('ssh', 'dev', '-R', '8080', '--', 'true');
      assert.match(bad.stderr, /--remote-forward "8080" is not a forward/);
      const stdio = await admin.run('ssh', '--stdio', '-e', 'A=1', 'dev');
      assert.match(stdio.stderr, /not to --stdio/);
    } finally {
      here.close();
    }
  });

  it('writes one marked SSH block, keeps the rest of the file, and replaces the block when run again', async () => {
    const config = join(work, 'ssh', 'config');
    mkdirSync(join(work, 'ssh'));
    writeFileSync(config, 'Host example\n  User me\n');
    const dry = await admin.run('config-ssh', '--ssh-config-file', config, '--dry-run');
    assert.equal(dry.code, 0);
    assert.equal(readFileSync(config, 'utf8'), 'Host example\n  User me\n', 'a dry run writes nothing');
    const refused = await admin.run('config-ssh', '--ssh-config-file', config);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Pass -y/);
    assert.equal((await admin.run('config-ssh', '--ssh-config-file', config, '-y', '--ssh-option', 'ForwardAgent=yes')).code, 0);
    const written = readFileSync(config, 'utf8');
    assert.ok(written.startsWith('Host example\n  User me\n\n# ------------START-COVE-----------\n'), written);
    assert.match(written, /Host cove\.\*\n {2}ProxyCommand .* --url \S+ ssh --stdio --ssh-host-prefix cove\. %h\n/);
    assert.match(written, / {2}ForwardAgent yes\n/);
    assert.equal((await admin.run('config-ssh', '--ssh-config-file', config, '-y')).code, 0);
    const again = readFileSync(config, 'utf8');
    assert.equal(again.match(/START-COVE/g)?.length, 1, 'one block, replaced');
    assert.doesNotMatch(again, /ForwardAgent/);
  });

  it('pings the agent through the relay and prints app URLs', async () => {
    const ping = await admin.run('ping', 'dev', '-n', '3', '--interval', '0');
    assert.equal(ping.code, 0, ping.stderr);
    assert.equal(ping.stdout.match(/pong from dev\.main/g)?.length, 3);
    assert.match(ping.stdout, /3 pings: min [\d.]+ms, avg [\d.]+ms, max [\d.]+ms/);
    const open = await admin.run('open', 'dev', 'web');
    assert.equal(open.stdout, `${test.url}/@admin/dev.main/apps/web/\n`);
    const listed = await admin.run('open', 'dev', '-o', 'json');
    assert.deepEqual(JSON.parse(listed.stdout), [{ slug: 'web', display_name: 'Web' }]);
    const missing = await admin.run('open', 'dev', 'nope');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no app "nope"[\s\S]*web/);
  });
});
