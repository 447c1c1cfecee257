import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as pause } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { CoveClient } from '../../src/sdk/client.js';
import type { Workspace } from '../../src/sdk/wire/index.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { createPostgresCluster, postgresBinaries, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** What every request answers while the database is down. */
const UNAVAILABLE = 'The database is unavailable; try again shortly.';

/** The cluster's superuser: a name that appears nowhere else, so finding it in an answer means the driver's text leaked. */
const SUPERUSER = 'outage_superuser';

/** How soon after the database is back the daemon must serve again. */
const BACK_WITHIN_MS = 10_000;

const OUTAGES = 3;

/** Longest a request may wait for its answer, outage or not. */
const ANSWER_WITHIN_MS = 10_000;

/** Requests the load keeps in flight against one daemon: enough that some are mid-query when the server dies. */
const CONCURRENCY = 6;

const binaries = postgresBinaries();
const skip =
  binaries === undefined && process.env['COVE_REQUIRE_PG'] !== '1' ? 'no PostgreSQL server binaries to run a cluster of its own' : false;

/** One answer the load got: its status (0 when the connection itself failed), its body, and when. */
interface Outcome {
  readonly status: number;
  readonly body: string;
  readonly at: number;
}

/** A `cove serve` child and everything it has written to stderr. */
interface Replica {
  readonly process: ChildProcess;
  readonly url: string;
  log(): string;
}

describe('bin/cove serve through PostgreSQL outages', { skip }, () => {
  let cluster: PostgresCluster | undefined;
  const replicas: Replica[] = [];
  const directories: string[] = [];
  const sockets: WebSocket[] = [];

  async function serve(extra: readonly string[]): Promise<Replica> {
    if (!cluster) throw new Error('no cluster');
    const dataDir = mkdtempSync(join(tmpdir(), 'cove-outage-'));
    directories.push(dataDir);
    const args = ['serve', '--http-address', '127.0.0.1:0', '--data-dir', dataDir, '--postgres-url', cluster.url];
    // The load would otherwise meet the API's rate limit instead of the database.
    args.push('--dangerous-disable-rate-limits', ...extra);
    const child = spawn(COVE, args, { env: { ...process.env, COVE_SECRET_STORE: 'file' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    const url = await waitFor(child, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
    const replica = { process: child, url, log: () => log };
    replicas.push(replica);
    return replica;
  }

  before(async () => {
    if (!binaries) throw new Error('COVE_REQUIRE_PG=1, but there are no PostgreSQL server binaries in /usr/lib/postgresql');
    cluster = await createPostgresCluster(binaries, SUPERUSER);
  });

  after(async () => {
    for (const socket of sockets) socket.terminate();
    await Promise.all(replicas.map((replica) => stop(replica.process)));
    cluster?.destroy();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  it('lives through the database going away under load, answers 503 without saying where it is, and serves again once it is back', async () => {
    const database = cluster;
    assert.ok(database);
    // Two replicas: the second hears of the first's changes only through LISTEN, which must come back too.
    const first = await serve(['--provisioner-daemons', '1']);
    const second = await serve(['--provisioner-daemons', '0']);
    const anonymous = new CoveClient({ url: first.url });
    await anonymous.createFirstUser({ email: 'admin@example.com', username: 'admin', password: STRONG_PASSWORD });
    const { session_token: token } = await anonymous.login('admin@example.com', STRONG_PASSWORD);
    const admin = anonymous.withToken(token);
    const { template } = await createEchoTemplate(admin, 'echo', {});
    const workspace = await admin.createWorkspace('me', { template_id: template.id, name: 'dev' });
    await eventually(async () => assert.equal((await admin.workspace(workspace.id)).latest_build.status, 'running'), 20_000, 100);

    for (let outage = 1; outage <= OUTAGES; outage++) {
      const outcomes: Outcome[] = [];
      const stopLoad = startLoad(first.url, token, outcomes);
      try {
        await eventually(() => assert.ok(outcomes.filter((o) => o.status === 200).length >= 10, 'the load is served'), 10_000, 50);
        const downAt = Date.now();
        database.stopImmediately();

        for (const replica of [first, second]) {
          await eventually(async () => assertUnavailable(await call(replica.url, 'GET', '/api/v2/workspaces', token)), 10_000, 50);
          // Signing in reads the database before any session exists.
          const login = await call(replica.url, 'POST', '/api/v2/users/login', undefined, {
            email: 'admin@example.com',
            password: 'wrong',
          });
          assertUnavailable(login);
        }
        // The load goes on meeting the outage for a while: some of it mid-query, some of it waiting for a connection.
        await eventually(
          () =>
            assert.ok(
              outcomes.filter((o) => o.at > downAt && o.status === 503).length >= 30,
              `outage ${outage}: ${JSON.stringify(outcomes.slice(-10))}`,
            ),
          15_000,
          50,
        );
        // The session is still in the replica's cache: the operator reads the report, and it says the database is down.
        const health = await call(first.url, 'GET', '/api/v2/debug/health?force=true', token);
        assert.equal(health.status, 200, health.body);
        const report = JSON.parse(health.body) as { database: { healthy: boolean; reachable: boolean; error?: string } };
        assert.equal(report.database.reachable, false, health.body);
        assert.equal(report.database.healthy, false, health.body);
        // The report names the daemon's own address elsewhere; its database section names nothing of the database's.
        assertNoAddress(JSON.stringify(report.database), database.port);
        for (const replica of [first, second]) {
          assert.equal(replica.process.exitCode, null, `the replica ended during outage ${outage}:\n${replica.log()}`);
          assert.equal(replica.process.signalCode, null, `the replica ended during outage ${outage}:\n${replica.log()}`);
        }

        database.start();
        const upAt = Date.now();
        for (const replica of [first, second]) {
          await eventually(
            async () => assert.equal((await call(replica.url, 'GET', '/api/v2/workspaces', token)).status, 200),
            BACK_WITHIN_MS - (Date.now() - upAt),
            50,
          );
        }
        assert.ok(Date.now() - upAt < BACK_WITHIN_MS, `serving again took ${Date.now() - upAt} ms`);
      } finally {
        await stopLoad();
      }

      for (const outcome of outcomes) {
        assert.notEqual(outcome.status, 0, `a request failed without an answer: ${outcome.body}`);
        if (outcome.status < 400) continue;
        assertUnavailable(outcome);
        assertNoAddress(outcome.body, database.port);
      }

      // The second replica hears of a build made through the first: its LISTEN is back.
      const watch = await watchSocket(second.url, workspace.id, token);
      sockets.push(watch.socket);
      await eventually(() => assert.ok(watch.workspaces.length > 0), 10_000, 50);
      const transition = outage % 2 === 1 ? 'stop' : 'start';
      const build = await eventually(() => admin.createWorkspaceBuild(workspace.id, { transition }), 10_000, 200);
      const done = transition === 'stop' ? 'stopped' : 'running';
      await eventually(
        async () => {
          const seen = watch.workspaces.map((w) => `${w.latest_build.id === build.id ? 'new' : 'old'} ${w.latest_build.status}`);
          const now = (await admin.workspace(workspace.id)).latest_build;
          assert.ok(
            watch.workspaces.some((w) => w.latest_build.id === build.id && w.latest_build.status === done),
            `outage ${outage}: the second replica's watch saw ${seen.join(', ')}; the build is ${now.id === build.id ? 'new' : 'old'} ${now.status}\n` +
              `the first replica's log ends with:\n${first.log().split('\n').slice(-40).join('\n')}`,
          );
        },
        10_000,
        100,
      );
      watch.socket.terminate();
    }

    for (const replica of [first, second]) {
      assert.equal(replica.process.exitCode, null, replica.log());
      assert.doesNotMatch(replica.log(), /unhandled|uncaught/i);
    }
    // The operator's log says what happened in so many words (with the driver's own error beside it, for them).
    assert.match(first.log(), /the database is unavailable/);
  });
});

/**
 * Keeps `CONCURRENCY` requests going against `url` (reads and writes, each needing the database),
 * recording every answer, until the returned function is called.
 */
function startLoad(url: string, token: string, outcomes: Outcome[]): () => Promise<void> {
  let running = true;
  const requests: readonly [string, string, unknown][] = [
    ['GET', '/api/v2/workspaces', undefined],
    ['GET', '/api/v2/users/me/keys/tokens', undefined],
    ['POST', '/api/v2/users/me/keys', {}],
    ['GET', '/api/v2/templates', undefined],
  ];
  const loops = Array.from({ length: CONCURRENCY }, async (_, index) => {
    for (let turn = index; running; turn++) {
      const [method, path, body] = requests[turn % requests.length] ?? requests[0]!;
      try {
        outcomes.push({ ...(await call(url, method, path, token, body)), at: Date.now() });
      } catch (error) {
        outcomes.push({ status: 0, body: `${method} ${path}: ${String(error)}`, at: Date.now() });
      }
      // Bounded load: a short pause per request keeps the two cores for the daemons and the database.
      await pause(10);
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

async function call(url: string, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = {};
  if (token) headers['Service-Session-Token'] = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    // An answer that never comes is a failure of its own, recorded as such rather than stalling the load.
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: await response.text() };
}

/** A 503 in the error shape with the generic message and nothing of the driver's or the server's. */
function assertUnavailable(answer: { readonly status: number; readonly body: string }): void {
  assert.equal(answer.status, 503, answer.body);
  const problem = JSON.parse(answer.body) as { message?: string; detail?: string };
  assert.equal(problem.message, UNAVAILABLE, answer.body);
}

/** Fails when `text` names where the database is, who connects to it, or what the driver said. */
function assertNoAddress(text: string, port: number): void {
  for (const leak of ['127.0.0.1', String(port), SUPERUSER, 'ECONNREFUSED', 'ECONNRESET', 'Connection terminated', 'postgres://']) {
    assert.ok(!text.includes(leak), `"${leak}" in ${text}`);
  }
}

/** A watch WebSocket and the workspaces it has sent. */
async function watchSocket(url: string, workspaceId: string, token: string): Promise<{ socket: WebSocket; workspaces: Workspace[] }> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v2/workspaces/${workspaceId}/watch-ws`, {
    headers: { 'Service-Session-Token': token },
  });
  const workspaces: Workspace[] = [];
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString('utf8')) as { type: string; data?: unknown };
    if (message.type === 'data') workspaces.push(message.data as Workspace);
  });
  socket.on('error', () => undefined);
  await once(socket, 'open');
  return { socket, workspaces };
}
