import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { CoveClient } from '../../src/sdk/client.js';
import type { AuditLog, ConnectionLog } from '../../src/sdk/wire/index.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { eventually as eventuallyWithin } from '../helpers/eventually.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';
import { freePort } from '../helpers/free-port.js';
import { COVE_BIN } from '../helpers/repository-root.js';
import { TerminalUser, type ServeProcess } from '../helpers/terminal-user.js';

/**
 * `cove serve` behind Debian's nginx on loopback, trusting it (127.0.0.1/32) for X-Forwarded-For:
 * everything a user does goes through the proxy, WebSockets included, and the daemon sees each
 * client's own address. A client reaching the daemon from an address it does not trust
 * (127.0.0.2) is recorded with that address, whatever X-Forwarded-For it sends.
 */

const NGINX = '/usr/sbin/nginx';
/** Requests a minute the sign-in route allows one client (LOGIN_RATE_LIMIT). */
const LOGIN_LIMIT = 60;

const eventually = <T>(check: () => T | Promise<T>, timeoutMs = 30_000): Promise<T> => eventuallyWithin(check, timeoutMs, 100);

/** The nginx configuration the operations guide shows, with the test's ports and temporary paths. */
function nginxConfig(root: string, listen: number, upstream: number): string {
  const temp = (name: string) => join(root, 'nginx', name);
  return `worker_processes 1;
user ${userInfo().username};
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  map $http_upgrade $connection_upgrade {
    default upgrade;
    '' close;
  }
  server {
    listen 127.0.0.1:${listen};
    client_max_body_size 0;
    location / {
      proxy_pass http://127.0.0.1:${upstream};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
    }
  }
}
`;
}

/** A POST straight to the daemon from 127.0.0.2, an address it does not trust. */
function postFromUntrusted(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; remaining: number }> {
  return new Promise((resolvePromise, reject) => {
    const target = new URL(path, url);
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        localAddress: '127.0.0.2',
        headers: { 'content-type': 'application/json', ...headers },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolvePromise({ status: response.statusCode ?? 0, remaining: Number(response.headers['x-ratelimit-remaining']) }),
        );
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

const missing = existsSync(NGINX) ? undefined : `${NGINX} is not installed (apt-get install nginx)`;

if (missing !== undefined && process.env['COVE_REQUIRE_NGINX'] === '1') {
  // .ci/run installs nginx: there a missing one is a failure, not a skip.
  describe('cove serve behind nginx', () => {
    it('has nginx (COVE_REQUIRE_NGINX=1)', () => assert.fail(missing));
  });
} else {
  describe('cove serve behind nginx, trusting its X-Forwarded-For', { skip: THE_SQLITE_RUN_COVERS_IT || missing }, () => {
    const user = new TerminalUser('proxy');
    const { root, env } = user;
    const cove = (...args: string[]) => user.cove(...args);
    let serve: ServeProcess | undefined;
    let nginx: ChildProcess | undefined;
    let nginxLog = '';
    let app: Server;
    let appPort = 0;
    /** The daemon itself, and the proxy in front of it: the access URL. */
    let direct = '';
    let proxied = '';
    let token = '';
    let client: CoveClient;
    let agentId = '';

    const auditLogs = async (q: string): Promise<AuditLog[]> => (await client.auditLogs({ q, limit: 100 })).audit_logs;
    const newestConnection = (q: string, ready: (log: ConnectionLog) => boolean) =>
      eventually(async () => {
        const found = (await client.connectionLogs({ q, limit: 5 })).connection_logs.find(ready);
        assert.ok(found, `a connection matching "${q}"`);
        return found;
      });
    const signIn = (forwardedFor: string, email: string, password: string) =>
      fetch(`${proxied}/api/v2/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ email, password }),
      });

    before(async () => {
      for (const name of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(root, 'nginx', name), { recursive: true });
      // The workspace's app answers with the client address it was told.
      app = createHttpServer((request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ forwardedFor: request.headers['x-forwarded-for'] ?? null }));
      });
      await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
      appPort = (app.address() as AddressInfo).port;

      const [daemonPort, nginxPort] = [await freePort(), await freePort()];
      direct = `http://127.0.0.1:${daemonPort}`;
      proxied = `http://127.0.0.1:${nginxPort}`;
      const config = join(root, 'nginx', 'nginx.conf');
      writeFileSync(config, nginxConfig(root, nginxPort, daemonPort));
      const nginxArgs = ['-e', 'stderr', '-p', join(root, 'nginx'), '-c', config];
      nginx = spawn(NGINX, [...nginxArgs, '-g', `daemon off; pid ${join(root, 'nginx', 'nginx.pid')}; error_log stderr;`], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      nginx.stderr?.on('data', (chunk: Buffer) => (nginxLog += chunk.toString('utf8')));

      // With --verbose, the daemon logs a line per request.
      const trust = ['--proxy-trusted-headers', 'X-Forwarded-For', '--proxy-trusted-origins', '127.0.0.1/32'];
      serve = await user.serve({ httpAddress: `127.0.0.1:${daemonPort}`, flags: ['--access-url', proxied, '--verbose', ...trust] });
      await eventually(
        () =>
          new Promise<void>((ok, fail) => {
            assert.equal(nginx?.exitCode, null, `nginx exited:\n${nginxLog}`);
            const socket = connect(nginxPort, '127.0.0.1', () => {
              socket.end();
              ok();
            }).once('error', fail);
          }),
        10_000,
      );

      user.signUpFirstUser(proxied);
      token = user.savedToken(proxied);
      client = new CoveClient({ url: proxied, token });
      user.initLocalShellTemplate('t', { slug: 'echo', url: `http://127.0.0.1:${appPort}` });
      const pushed = cove('templates', 'push', 't', '-y');
      assert.equal(pushed.code, 0, pushed.stderr);
      const create = cove('create', 'dev', '--template', 't', '-y');
      assert.equal(create.code, 0, create.stderr);
      // The agent reaches the daemon at the access URL: through nginx too.
      agentId = await eventually(async () => {
        const workspace = await client.workspaceByOwnerAndName('admin', 'dev');
        const agent = workspace.latest_build.resources.flatMap((r) => r.agents ?? [])[0];
        assert.equal(`${agent?.status}/${agent?.lifecycle_state}`, 'connected/ready');
        return agent?.id ?? '';
      });
    });

    after(async () => {
      await serve?.close();
      await stop(nginx);
      await new Promise((r) => app.close(r));
      user.remove();
    });

    it('serves the API through the proxy, and records the sign-in with the client address', async () => {
      assert.equal((await client.user()).username, 'admin');
      assert.deepEqual(
        (await client.workspaces()).workspaces.map((w) => w.name),
        ['dev'],
      );
      const [login] = await auditLogs('action:login username:admin');
      // nginx adds the address it saw, 127.0.0.1: a trusted hop and the leftmost, so the client.
      assert.equal(login?.ip, '127.0.0.1');
    });

    it('opens the web terminal over a WebSocket through the proxy, logged with the client address', async () => {
      const reconnect = randomUUID();
      const socket = new WebSocket(
        `${proxied.replace(/^http/, 'ws')}/api/v2/workspaceagents/${agentId}/pty?reconnect=${reconnect}&width=80&height=24`,
        {
          headers: { 'Service-Session-Token': token, 'X-Forwarded-For': '10.0.0.7' },
        },
      );
      let output = '';
      socket.on('message', (data: Buffer) => (output += data.toString()));
      await new Promise((r, j) => socket.once('open', r).once('error', j));
      socket.send(JSON.stringify({ data: 'echo marker-$((6*7))\r' }));
      await eventually(() => assert.match(output, /marker-42/), 10_000);
      const closed = new Promise((r) => socket.once('close', r));
      socket.send(JSON.stringify({ data: 'exit\r' }));
      await closed;
      const done = await newestConnection('type:reconnecting_pty', (log) => log.ssh_info?.connection_id === reconnect);
      assert.equal(done.ip, '10.0.0.7');
    });

    it('runs a command with cove ssh and forwards a port through the proxy', async () => {
      const hello = cove('ssh', 'dev', '--', 'echo', 'hello through nginx');
      assert.equal(hello.stdout, 'hello through nginx\n', hello.stderr);
      assert.equal(hello.code, 0);

      const local = await freePort();
      const forward = spawn(COVE_BIN, ['port-forward', 'dev', '--tcp', `${local}:${appPort}`], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        await waitFor(forward, 'stderr', /Forwarding/, 'cove port-forward');
        const answer: unknown = await eventually(async () => (await fetch(`http://127.0.0.1:${local}/`)).json(), 10_000);
        // Straight to the app through the workspace, no HTTP proxy in between: no address was forwarded.
        assert.deepEqual(answer, { forwardedFor: null });
      } finally {
        await stop(forward);
      }
    });

    it('serves a path app through the proxy, tells it the client address, not the chain, and logs that address', async () => {
      const response = await fetch(`${proxied}/@admin/dev.main/apps/echo/`, {
        headers: { 'Service-Session-Token': token, 'X-Forwarded-For': '10.0.0.9' },
      });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { forwardedFor: '10.0.0.9' });
      // The request log names the client too.
      await eventually(() => assert.match(serve?.log() ?? '', /incoming request.*10\.0\.0\.9|10\.0\.0\.9.*incoming request/), 5_000);
    });

    it('gives two clients behind the proxy their own sign-in rate-limit buckets and audit addresses', async () => {
      const organizationId = (await client.organizations())[0]?.id ?? '';
      await client.createUser({
        email: 'member@example.com',
        username: 'member',
        password: STRONG_PASSWORD,
        organization_ids: [organizationId],
      });
      // A new email each time: one account's failures are paced on their own (sign-in-throttle.ts).
      const answers = await Promise.all(
        Array.from({ length: LOGIN_LIMIT }, (_, i) => signIn('10.0.0.1', `nobody-${i}@example.com`, 'wrong')),
      );
      assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([401]));
      assert.equal((await signIn('10.0.0.1', 'nobody@example.com', 'wrong')).status, 429);
      // Another client: its own bucket, and its sign-in recorded with its address.
      const other = await signIn('10.0.0.2', 'member@example.com', STRONG_PASSWORD);
      assert.equal(other.status, 201);
      const [memberLogin] = await auditLogs('action:login username:member');
      assert.equal(memberLogin?.ip, '10.0.0.2');
      const failed = (await auditLogs('action:login')).filter((entry) => entry.status_code === 401);
      assert.equal(failed.length, LOGIN_LIMIT);
      assert.deepEqual(new Set(failed.map((entry) => entry.ip)), new Set(['10.0.0.1']));
    });

    it('believes no X-Forwarded-For from a client that is not a trusted proxy', async () => {
      const first = await postFromUntrusted(
        direct,
        '/api/v2/users/login',
        { email: 'member@example.com', password: STRONG_PASSWORD },
        { 'x-forwarded-for': '10.6.6.6' },
      );
      assert.equal(first.status, 201);
      const [login] = await auditLogs('action:login username:member');
      assert.equal(login?.ip, '127.0.0.2');
      // A new made-up address on each request is still the same client: one bucket.
      const second = await postFromUntrusted(
        direct,
        '/api/v2/users/login',
        { email: 'nobody@example.com', password: 'wrong' },
        { 'x-forwarded-for': '10.6.6.7' },
      );
      assert.equal(second.status, 401);
      assert.equal(second.remaining, first.remaining - 1);
    });

    it('refuses to start with a trusted origin that is not a network', () => {
      const refused = cove(
        'serve',
        '--http-address',
        '127.0.0.1:0',
        '--proxy-trusted-headers',
        'X-Forwarded-For',
        '--proxy-trusted-origins',
        '10.0.0.0/99',
      );
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /--proxy-trusted-origins: "10\.0\.0\.0\/99" is not a network such as 192\.168\.1\.0\/24/);
    });
  });
}
