import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CoveClient } from '../../src/sdk/client.js';
import { CliUser } from '../helpers/run-cli.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

/**
 * A server on loopback that accepts every connection and never says a word: a hung deployment.
 * `requested` resolves once a request has reached it, when the client's clock is surely running.
 */
async function silentServer(): Promise<{
  readonly url: string;
  readonly requested: () => Promise<void>;
  readonly open: () => number;
  readonly close: () => Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let arrived: (() => void) | undefined;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', () => arrived?.());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requested: () => new Promise((resolve) => (arrived = resolve)),
    open: () => sockets.size,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Runs a command and measures how long it took. */
async function timed(user: CliUser, ...args: string[]) {
  const started = Date.now();
  const result = await user.run(...args);
  return { ...result, seconds: (Date.now() - started) / 1000 };
}

describe('request timeout: a deployment that accepts and never answers', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  let hung: Awaited<ReturnType<typeof silentServer>>;
  const user = new CliUser();
  before(async () => {
    hung = await silentServer();
  });
  after(async () => hung.close());

  it('whoami fails after --request-timeout with a clear message', async () => {
    const result = await timed(user, 'whoami', '--url', hung.url, '--token', 'x', '--request-timeout', '1s');
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^error: The deployment did not answer within 1s\.$/m);
    assert.match(result.stderr, /--request-timeout/);
    assert.ok(result.seconds >= 0.9 && result.seconds < 10, `took ${result.seconds}s`);
  });

  it('COVE_REQUEST_TIMEOUT sets it when the flag does not', async () => {
    const result = await timed(user.withEnv({ COVE_REQUEST_TIMEOUT: '500ms' }), 'whoami', '--url', hung.url, '--token', 'x');
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /did not answer within 0\.5s/);
    assert.ok(result.seconds < 10, `took ${result.seconds}s`);
  });

  it('health report exits 2, as for a deployment it cannot reach', async () => {
    const result = await timed(user, 'health', 'report', '--url', hung.url, '--token', 'x', '--request-timeout', '1s');
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`The deployment at ${hung.url} did not answer within 1s`));
  });

  it('a bare number or a word is refused, never read as milliseconds', async () => {
    const bare = await user.run('whoami', '--url', hung.url, '--token', 'x', '--request-timeout', '30');
    assert.equal(bare.code, 1);
    assert.match(bare.stderr, /--request-timeout/);
    const word = await user.withEnv({ COVE_REQUEST_TIMEOUT: 'soon' }).run('whoami', '--url', hung.url, '--token', 'x');
    assert.equal(word.code, 1);
    assert.match(word.stderr, /COVE_REQUEST_TIMEOUT: "soon" is not a duration/);
  });

  it('waits 30 seconds by default', async (t) => {
    // On a clock the test moves rather than 30 real seconds: the command's deadline is a setTimeout
    // (src/sdk/http-transport.ts), and the socket and HTTP machinery keep Node's own timers.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const requested = hung.requested();
    const running = user.start('whoami', '--url', hung.url, '--token', 'x');
    await requested;
    let finished = false;
    void running.done.then(() => (finished = true));
    // Turns of the event loop, for up to a second of real time, until the command has finished.
    const settle = async () => {
      const end = performance.now() + 1000;
      while (!finished && performance.now() < end) await new Promise((resolve) => setImmediate(resolve));
    };
    t.mock.timers.tick(29_500);
    await settle();
    assert.equal(finished, false, 'still waiting after 29.5 s');
    assert.ok(hung.open() > 0, 'the request is still open after 29.5 s');
    t.mock.timers.tick(500);
    await settle();
    assert.equal(finished, true, 'given up at 30 s');
    const result = await running.done;
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /did not answer within 30s/);
  });
});

describe('request timeout: streams stay open past it', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('a workspace watch and an agent log follow outlive a client timeout of 300 ms', async () => {
    const { template } = await createEchoTemplate(owner, 'quiet-box', {
      apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: 'never-connects' }] }] },
    });
    const workspace = await owner.createWorkspace('me', { name: 'dev', template_id: template.id });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const built = await owner.workspace(workspace.id);
    const agent = built.latest_build.resources.flatMap((resource) => resource.agents ?? [])[0];
    assert.ok(agent);

    const impatient = new CoveClient({ url: test.url, token: owner.token, timeoutMs: 300 });
    // Plain calls still work under the limit.
    assert.equal((await impatient.user('me')).username, (await owner.user('me')).username);
    const stop = new AbortController();
    let updates = 0;
    let failure: unknown;
    const ended: string[] = [];
    const watching = impatient
      .watchWorkspace(workspace.id, () => updates++, stop.signal)
      .catch((error: unknown) => (failure = error))
      .finally(() => ended.push('watch'));
    // The agent never connects, so its startup log stays open and quiet.
    const following = impatient
      .followWorkspaceAgentLogs(agent.id, () => undefined, undefined, stop.signal)
      .catch((error: unknown) => (failure = error))
      .finally(() => ended.push('follow'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual(ended, [], 'both streams are still open');
    stop.abort();
    await Promise.all([watching, following]);
    assert.equal(failure, undefined);
    assert.ok(updates >= 1, 'the watch sent the workspace on connect');
  });
});
