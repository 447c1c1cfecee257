import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { ApiError } from '../../src/sdk/api-error.js';
import { CoveClient } from '../../src/sdk/client.js';
import type { ConnectionLog } from '../../src/sdk/wire/index.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { eventually as eventuallyWithin } from '../helpers/eventually.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';
import { freePort } from '../helpers/free-port.js';
import { COVE_BIN } from '../helpers/repository-root.js';
import { TerminalUser, type ServeProcess } from '../helpers/terminal-user.js';

const HAS_OPENSSH = spawnSync('ssh', ['-V']).status === 0;
/** What the test's own server answers, through the app and through a forwarded port. */
const PAYLOAD = Buffer.alloc(200_000, 'p');

const eventually = <T>(check: () => T | Promise<T>, timeoutMs = 30_000): Promise<T> => eventuallyWithin(check, timeoutMs, 200);

type Shown = { latest_build: { resources: { agents: { id: string; status: string; lifecycle_state: string }[] }[] } };

describe(
  'the connection log records terminals, SSH, forwarded ports and apps through the relay',
  { skip: THE_SQLITE_RUN_COVERS_IT },
  () => {
    const user = new TerminalUser('connlog');
    const { root, env } = user;
    const cove = (...args: string[]) => user.cove(...args);
    let serve: ServeProcess | undefined;
    let app: Server;
    let appPort = 0;
    let url = '';
    let token = '';
    let client: CoveClient;
    let agentId = '';

    /** The newest connection matching `q`, once it shows `ready`. */
    const newest = (q: string, ready: (log: ConnectionLog) => boolean = () => true) =>
      eventually(async () => {
        const page = await client.connectionLogs({ q, limit: 5 });
        const found = page.connection_logs[0];
        assert.ok(found && ready(found), `a connection matching "${q}": ${JSON.stringify(page.connection_logs[0])}`);
        return found;
      });

    before(async () => {
      app = createHttpServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        response.end(PAYLOAD);
      });
      await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
      appPort = (app.address() as AddressInfo).port;
      serve = await user.serve();
      url = serve.url;
      user.signUpFirstUser(url);
      token = user.savedToken(url);
      client = new CoveClient({ url, token });
      user.initLocalShellTemplate('t', { slug: 'payload', url: `http://127.0.0.1:${appPort}` });
      assert.equal(cove('templates', 'push', 't', '-y').code, 0);
      const create = cove('create', 'dev', '--template', 't', '-y');
      assert.equal(create.code, 0, create.stderr);
      agentId = await eventually(() => {
        const agent = (JSON.parse(cove('show', 'dev', '-o', 'json').stdout) as Shown).latest_build.resources.flatMap((r) => r.agents)[0];
        assert.equal(`${agent?.status}/${agent?.lifecycle_state}`, 'connected/ready');
        return agent?.id ?? '';
      });
    });

    after(async () => {
      await serve?.close();
      await new Promise((r) => app.close(r));
      user.remove();
    });

    it('logs a web terminal: ongoing while open, then its bytes, end and exit code', async () => {
      const reconnect = randomUUID();
      const socket = new WebSocket(
        `${url.replace(/^http/, 'ws')}/api/v2/workspaceagents/${agentId}/pty?reconnect=${reconnect}&width=80&height=24`,
        {
          headers: { 'Service-Session-Token': token },
        },
      );
      let output = '';
      socket.on('message', (data) => (output += data.toString()));
      await new Promise((r, j) => socket.once('open', r).once('error', j));
      socket.send(JSON.stringify({ data: 'echo marker-$((6*7))\r' }));
      await eventually(() => assert.match(output, /marker-42/));
      const open = await newest('type:reconnecting_pty status:ongoing');
      assert.equal(open.ssh_info?.connection_id, reconnect);
      assert.equal(open.disconnect_time, undefined);
      assert.equal(open.user?.username, 'admin');
      const closed = new Promise((r) => socket.once('close', r));
      socket.send(JSON.stringify({ data: 'exit 7\r' }));
      await closed;
      const done = await newest('type:reconnecting_pty status:completed', (log) => log.ssh_info?.connection_id === reconnect);
      assert.equal(done.ssh_info?.exit_code, 7);
      assert.ok(done.disconnect_time, 'the end is recorded');
      assert.equal(done.ssh_info?.disconnect_time, done.disconnect_time);
      assert.equal(done.ip, '127.0.0.1');
      assert.equal(done.workspace_name, 'dev');
      assert.equal(done.agent_name, 'main');
      assert.equal(done.workspace_owner_username, 'admin');
      assert.ok(done.bytes_from_workspace >= 'marker-42'.length, `bytes from the workspace: ${done.bytes_from_workspace}`);
      assert.ok(done.bytes_to_workspace >= 'exit 7'.length, `bytes to the workspace: ${done.bytes_to_workspace}`);
    });

    it(
      'logs an OpenSSH session through cove ssh --stdio with its bytes, end and exit status, and cove connections list shows it',
      {
        skip: !HAS_OPENSSH && 'OpenSSH is not installed',
      },
      async () => {
        const config = join(root, 'ssh_config');
        assert.equal(cove('config-ssh', '--ssh-config-file', config, '-y').code, 0);
        const input = Buffer.alloc(30_000, 'i');
        const ssh = spawnSync('ssh', ['-F', config, 'cove.dev', 'cat >/dev/null; head -c 50000 /dev/zero; exit 3'], {
          env: { ...process.env, ...env },
          input,
          timeout: 60_000,
        });
        assert.equal(ssh.status, 3, String(ssh.stderr));
        assert.equal(ssh.stdout.length, 50_000);
        const done = await newest('type:ssh status:completed username:admin', (log) => log.ssh_info?.exit_code !== undefined);
        assert.equal(done.ssh_info?.exit_code, 3);
        assert.ok(done.disconnect_time);
        assert.ok(done.bytes_to_workspace >= 30_000, `bytes to the workspace: ${done.bytes_to_workspace}`);
        assert.ok(done.bytes_from_workspace >= 50_000, `bytes from the workspace: ${done.bytes_from_workspace}`);
        assert.equal(done.ip, '127.0.0.1');

        const listed = cove('connections', 'list', '-q', 'type:ssh', '-o', 'json');
        assert.equal(listed.code, 0, listed.stderr);
        const shown = (JSON.parse(listed.stdout) as ConnectionLog[]).find((log) => log.id === done.id);
        assert.ok(shown, 'the CLI lists the session');
        assert.equal(shown.disconnect_time, done.disconnect_time);
        assert.equal(shown.bytes_to_workspace, done.bytes_to_workspace);
        assert.equal(shown.ssh_info?.exit_code, 3);
        const table = cove('connections', 'list', '-q', 'type:ssh', '-c', 'type,exit code,user');
        assert.match(table.stdout, /ssh +3 +admin/);
      },
    );

    it('logs a forwarded port with the bytes it carried', async () => {
      const local = await freePort();
      const forward = spawn(COVE_BIN, ['port-forward', 'dev', '--tcp', `${local}:${appPort}`], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        await waitFor(forward, 'stderr', /Forwarding/, 'cove port-forward');
        const body = await eventually(async () => Buffer.from(await (await fetch(`http://127.0.0.1:${local}/`)).arrayBuffer()));
        assert.equal(body.length, PAYLOAD.length);
      } finally {
        await stop(forward);
      }
      const done = await newest(`type:port_forwarding status:completed`, (log) => log.bytes_from_workspace >= PAYLOAD.length);
      assert.equal(done.web_info?.slug_or_port, String(appPort));
      assert.equal(done.user?.username, 'admin');
      assert.ok(done.disconnect_time);
    });

    it('logs an app session once for several requests, with who, the HTTP status and the bytes', async () => {
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${url}/@admin/dev.main/apps/payload/`, {
          headers: { 'Service-Session-Token': token, 'user-agent': 'conn-log-test' },
        });
        assert.equal(response.status, 200);
        assert.equal((await response.arrayBuffer()).byteLength, PAYLOAD.length);
      }
      const session = await newest('type:workspace_app', (log) => log.bytes_from_workspace >= 3 * PAYLOAD.length);
      assert.equal(session.web_info?.status_code, 200);
      assert.equal(session.web_info?.slug_or_port, 'payload');
      assert.equal(session.web_info?.user_agent, 'conn-log-test');
      assert.equal(session.user?.username, 'admin');
      // One row for the three requests: the session stays open until it has been idle for a while.
      assert.equal((await client.connectionLogs({ q: 'type:workspace_app' })).count, 1);
      assert.equal((await client.connectionLogs({ q: 'type:workspace_app status:ongoing' })).count, 1);
    });

    it('filters in SQL, refuses bad searches with a 400, and refuses members with a 403', async () => {
      const all = await client.connectionLogs();
      assert.ok(all.count >= 3);
      const page = await client.connectionLogs({ limit: 1, offset: 1 });
      assert.equal(page.connection_logs.length, 1);
      assert.equal(page.connection_logs[0]?.id, all.connection_logs[1]?.id);
      assert.equal(page.count, all.count);
      assert.equal((await client.connectionLogs({ q: 'username:nobody' })).count, 0);
      assert.equal((await client.connectionLogs({ q: 'connected_after:2999-01-01T00:00:00Z' })).count, 0);
      await assert.rejects(client.connectionLogs({ q: 'type:telnet colour:blue' }), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.status, 400);
        assert.deepEqual(
          error.body.validations?.map((v) => v.field),
          ['colour', 'type'],
        );
        return true;
      });
      const organizationId = all.connection_logs[0]?.organization.id ?? '';
      await client.createUser({
        email: 'member@example.com',
        username: 'member',
        password: STRONG_PASSWORD,
        organization_ids: [organizationId],
      });
      const member = new CoveClient({ url, token: (await client.login('member@example.com', STRONG_PASSWORD)).session_token });
      await assert.rejects(member.connectionLogs(), (error: unknown) => error instanceof ApiError && error.status === 403);
    });
  },
);
