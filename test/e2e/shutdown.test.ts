import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { dirname, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { WebSocket } from 'ws';
import { CoveClient } from '../../src/sdk/client.js';
import { createTestDatabase, serveDatabaseArgs, TEST_DIALECTS } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { waitFor } from '../helpers/child-process.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** What the graceful shutdown may take at most, from SIGTERM to the process's exit. */
const SHUTDOWN_BOUND_MS = 10_000;

const AGENT_TOKEN = 'agent-token-of-the-shutdown-test';

/** A template whose workspaces get an agent, and one whose builds never finish. */
const WITH_AGENT = {
  apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: AGENT_TOKEN }] }] },
};
const HANGING = { apply: { hang: true } };

/** Resolves with the close code a WebSocket gets, however it ends. */
function closeCode(socket: WebSocket): Promise<number> {
  return new Promise((resolvePromise) => {
    socket.on('error', () => undefined);
    socket.once('close', (code) => resolvePromise(code));
    socket.resume();
  });
}

/** An open server-sent event stream: resolves once its headers have arrived. */
function openEventStream(url: string, token: string): Promise<IncomingMessage> {
  return new Promise((resolvePromise, reject) => {
    const stream = request(url, { headers: { 'service-session-token': token, accept: 'text/event-stream' } }, (response) => {
      response.on('error', () => undefined);
      response.resume();
      resolvePromise(response);
    });
    stream.on('error', reject);
    stream.end();
  });
}

describe('cove serve stops within 10 s of SIGTERM', () => {
  for (const dialect of TEST_DIALECTS) {
    it(`with open WebSockets, streams, a running job and requests in flight (${dialect})`, async (t) => {
      const database = await createTestDatabase(dialect);
      const args = ['serve', '--http-address', '127.0.0.1:0', '--data-dir', database.dataDir, '--provisioner-daemons', '1'];
      const server: ChildProcess = spawn(COVE, [...args, ...serveDatabaseArgs(database)], {
        env: { ...process.env, COVE_SECRET_STORE: 'file' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let output = '';
      server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolvePromise) =>
        server.once('exit', (code, signal) => resolvePromise({ code, signal })),
      );
      try {
        const url = await waitFor(server, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
        const anonymous = new CoveClient({ url });
        await anonymous.createFirstUser({ email: 'owner@example.com', username: 'owner', password: STRONG_PASSWORD });
        const owner = anonymous.withToken((await anonymous.login('owner@example.com', STRONG_PASSWORD)).session_token);
        const token = owner.token ?? '';

        // A workspace with an agent connected, watched over a WebSocket and over server-sent events.
        const withAgent = await createEchoTemplate(owner, 'with-agent', WITH_AGENT);
        const workspace = await owner.createWorkspace('me', { template_id: withAgent.template.id, name: 'dev' });
        await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
        const agent = await anonymous.withToken(AGENT_TOKEN).openSocket('/workspaceagents/me/rpc');
        const watch = await owner.openSocket(`/workspaces/${workspace.id}/watch-ws`);
        const events = await openEventStream(`${url}/api/v2/workspaces/${workspace.id}/watch`, token);
        // A build that never ends: the built-in provisioner holds its job, and its log is followed.
        const hanging = await createEchoTemplate(owner, 'hanging', HANGING);
        const stuck = await owner.createWorkspace('me', { template_id: hanging.template.id, name: 'stuck' });
        const logs = await owner.openSocket(`/workspacebuilds/${stuck.latest_build.id}/logs`, { follow: true });
        const closes = [closeCode(agent), closeCode(watch), closeCode(logs)];
        const eventsEnded = new Promise<void>((resolvePromise) => events.once('close', resolvePromise));

        // A request whose body never comes, and a crowd of requests still in flight.
        const { port } = new URL(url);
        const silent = connect(Number(port), '127.0.0.1');
        silent.on('error', () => undefined);
        silent.write(
          `POST /api/v2/users/me/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nService-Session-Token: ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
        );
        const crowd = Array.from({ length: 200 }, (_unused, index) =>
          (index % 2 === 0 ? owner.workspaces() : owner.templates()).catch(() => undefined),
        );

        const signalled = Date.now();
        server.kill('SIGTERM');
        const deadline = new Promise<'late'>((resolvePromise) =>
          setTimeout(() => resolvePromise('late'), SHUTDOWN_BOUND_MS + 5_000).unref(),
        );
        const outcome = await Promise.race([exited, deadline]);
        const took = Date.now() - signalled;
        t.diagnostic(`stopped ${took} ms after SIGTERM`);
        if (outcome === 'late') assert.fail(`still running ${took} ms after SIGTERM:\n${output.slice(-3000)}`);
        assert.ok(took <= SHUTDOWN_BOUND_MS, `took ${took} ms to stop:\n${output.slice(-3000)}`);
        assert.equal(outcome.code, 0, `exit ${String(outcome.code)} ${String(outcome.signal)}:\n${output.slice(-3000)}`);
        // WebSockets were told the server is going away, not just cut. The build's log stream may
        // instead have ended normally: its job was canceled as the built-in provisioner stopped.
        const [agentClose, watchClose, logsClose] = await Promise.all(closes);
        assert.deepEqual([agentClose, watchClose], [1001, 1001]);
        assert.ok(logsClose === 1001 || logsClose === 1000, `the log stream closed with ${logsClose}`);
        await eventsEnded;
        await Promise.all(crowd);
        silent.destroy();
      } finally {
        if (server.exitCode === null && server.signalCode === null) {
          server.kill('SIGKILL');
          await exited;
        }
        await database.drop();
      }
    });
  }
});
