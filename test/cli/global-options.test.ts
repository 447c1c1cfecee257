import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { CliUser } from '../helpers/run-cli.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * A proxy in front of the daemon that refuses every request (plain or WebSocket upgrade) without
 * `X-Proxy-Auth: s3cret`, as an identity-aware gateway would, records the headers it saw, and
 * reports a different daemon version so the CLI's version warning has something to say.
 */
async function gatekeeper(
  target: string,
): Promise<{ url: string; seen: IncomingHttpHeaders[]; upgrades: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const upgrades: IncomingHttpHeaders[] = [];
  const sockets = new Set<Socket>();
  const upstream = new URL(target);
  const server: Server = createServer((incoming, outgoing) => {
    seen.push(incoming.headers);
    if (incoming.headers['x-proxy-auth'] !== 's3cret') {
      outgoing.writeHead(407, { 'content-type': 'application/json' }).end('{"message":"The proxy wants X-Proxy-Auth."}');
      return;
    }
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-cove-build-version': '0.0.1-elsewhere' });
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (incoming, socket: Socket, head: Buffer) => {
    upgrades.push(incoming.headers);
    if (incoming.headers['x-proxy-auth'] !== 's3cret') {
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const back = connect(Number(upstream.port), upstream.hostname, () => {
      const lines = [`${incoming.method} ${incoming.url} HTTP/1.1`];
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) lines.push(`${incoming.rawHeaders[i]}: ${incoming.rawHeaders[i + 1]}`);
      back.write(`${lines.join('\r\n')}\r\n\r\n`);
      back.write(head);
      socket.pipe(back).pipe(socket);
    });
    sockets.add(back);
    back.on('error', () => socket.destroy());
    socket.on('error', () => back.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    upgrades,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('global options: --header, --header-command, --global-config, --no-version-warning, -v', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let proxy: Awaited<ReturnType<typeof gatekeeper>>;
  const user = new CliUser();
  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    proxy = await gatekeeper(test.url);
  });
  after(async () => {
    await proxy.close();
    await test.close();
  });

  const at = () => ['--url', proxy.url, '--token', owner.token ?? ''];

  it('without the header the proxy refuses; --header (either spelling) gets through', async () => {
    const refused = await user.run('whoami', ...at());
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /X-Proxy-Auth/);
    for (const header of ['X-Proxy-Auth: s3cret', 'X-Proxy-Auth=s3cret']) {
      const result = await user.run('whoami', ...at(), '--header', header, '--no-version-warning');
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /owner/);
    }
  });

  it('--header repeats, and COVE_HEADER takes a comma-separated list', async () => {
    proxy.seen.length = 0;
    const flags = await user.run('whoami', ...at(), '--header', 'X-Proxy-Auth=s3cret', '--header', 'X-Team: blue', '--no-version-warning');
    assert.equal(flags.code, 0, flags.stderr);
    assert.equal(proxy.seen.at(-1)?.['x-team'], 'blue');
    const variable = await user.withEnv({ COVE_HEADER: 'X-Proxy-Auth=s3cret,X-Team=green' }).run('whoami', ...at(), '--no-version-warning');
    assert.equal(variable.code, 0, variable.stderr);
    assert.equal(proxy.seen.at(-1)?.['x-team'], 'green');
  });

  it('--header-command and COVE_HEADER_COMMAND: each output line is a header; a failing command says so', async () => {
    const command = await user.run(
      'whoami',
      ...at(),
      '--header-command',
      'printf "X-Proxy-Auth=s3cret\\nX-Team: red\\n"',
      '--no-version-warning',
    );
    assert.equal(command.code, 0, command.stderr);
    assert.equal(proxy.seen.at(-1)?.['x-team'], 'red');
    const variable = await user.withEnv({ COVE_HEADER_COMMAND: 'echo X-Proxy-Auth=s3cret' }).run('whoami', ...at(), '--no-version-warning');
    assert.equal(variable.code, 0, variable.stderr);
    const failing = await user.run('whoami', ...at(), '--header-command', 'echo nope >&2; exit 3');
    assert.equal(failing.code, 1);
    assert.match(failing.stderr, /^error: The header command failed: it exited with status 3\.$/m);
    assert.match(failing.stderr, /nope/);
    const garbage = await user.run('whoami', ...at(), '--header-command', 'echo not a header');
    assert.equal(garbage.code, 1);
    assert.match(garbage.stderr, /--header-command: "not a header" is not a header/);
  });

  it('WebSockets carry the headers too', async () => {
    proxy.upgrades.length = 0;
    // netcheck opens the relay map's WebSocket first.
    await user.run('netcheck', ...at(), '--header', 'X-Proxy-Auth=s3cret', '--no-version-warning', '-o', 'json');
    assert.ok(proxy.upgrades.length > 0, 'a WebSocket went through the proxy');
    assert.equal(proxy.upgrades[0]?.['x-proxy-auth'], 's3cret');
  });

  it('the version warning shows, and --no-version-warning or COVE_NO_VERSION_WARNING silences it', async () => {
    const fresh = new CliUser();
    const warned = await fresh.run('whoami', ...at(), '--header', 'X-Proxy-Auth=s3cret');
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /deployment runs 0\.0\.1-elsewhere/);
    for (const [runner, extra] of [
      [new CliUser(), ['--no-version-warning']],
      [new CliUser({ COVE_NO_VERSION_WARNING: 'true' }), []],
    ] as const) {
      const quiet = await runner.run('whoami', ...at(), '--header', 'X-Proxy-Auth=s3cret', ...extra);
      assert.equal(quiet.code, 0, quiet.stderr);
      assert.equal(quiet.stderr, '');
    }
  });

  it('--global-config chooses where login keeps the session, over COVE_CONFIG_DIR', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cove-global-config-'));
    const login = await user.run('login', test.url, '--token', owner.token ?? '', '--global-config', dir);
    assert.equal(login.code, 0, login.stderr);
    assert.ok(existsSync(join(dir, 'credentials.json')));
    assert.ok(!existsSync(join(user.configDir, 'credentials.json')), 'COVE_CONFIG_DIR was not used');
    const whoami = await user.run('whoami', '--global-config', dir);
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.match(whoami.stdout, /owner/);
    const elsewhere = await user.run('whoami');
    assert.equal(elsewhere.code, 1);
    const byVariable = await new CliUser({ COVE_CONFIG_DIR: dir }).run('whoami');
    assert.equal(byVariable.code, 0, byVariable.stderr);
  });

  it('-v and COVE_VERBOSE show the stack trace; COVE_VERBOSE=false does not', async () => {
    const args = ['whoami', '--url', 'http://127.0.0.1:1', '--token', 'x'];
    const short = await user.run('-v', ...args);
    assert.match(short.stderr, /\n\s+at /);
    const variable = await user.withEnv({ COVE_VERBOSE: 'true' }).run(...args);
    assert.match(variable.stderr, /\n\s+at /);
    const off = await user.withEnv({ COVE_VERBOSE: 'false' }).run(...args);
    assert.doesNotMatch(off.stderr, /\n\s+at /);
  });
});
