import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { eventually } from '../helpers/eventually.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';

const HEADER_TIMEOUT_MS = 1000;
const BODY_TIMEOUT_MS = 2000;
/** What the server may take beyond a timeout to notice it: it checks its connections every 100 ms here. */
const SLACK_MS = 1500;

/** Writes `text` on a new connection to `url` and then nothing more; resolves once the server closes it. */
function stall(url: string, text: string): Promise<{ readonly ms: number; readonly answer: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ ms: Date.now() - started, answer }));
    // Never more than this: a connection the server keeps is the failure this test looks for.
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection for ${Date.now() - started} ms`));
    }, 20_000).unref();
  });
}

/** The status and JSON body of a raw answer. */
function parseAnswer(raw: string): { readonly status: number; readonly body: unknown } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: body === '' ? undefined : JSON.parse(body) };
}

const TIMED_OUT = {
  message: 'The request did not arrive in time.',
  detail:
    'Its headers, and then its body, must arrive within the limits this deployment sets (--http-header-timeout, --http-body-timeout).',
};

describe('hardening: HTTP header and body timeouts', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({
      flags: {
        provisionerDaemons: '1',
        httpHeaderTimeoutMs: `${HEADER_TIMEOUT_MS}ms`,
        httpBodyTimeoutMs: `${BODY_TIMEOUT_MS}ms`,
        prometheusEnable: 'true',
        prometheusAddress: '127.0.0.1:0',
      },
    });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  it('cuts a client that sends half its headers, with a 408 in the error shape', async () => {
    const { ms, answer } = await stall(test.url, 'GET /api/v2/buildinfo HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    assert.ok(ms >= HEADER_TIMEOUT_MS - 100 && ms <= HEADER_TIMEOUT_MS + SLACK_MS, `cut after ${ms} ms`);
    assert.deepEqual(parseAnswer(answer), { status: 408, body: TIMED_OUT });
  });

  it('cuts a client that sends headers and a Content-Length but no body', async () => {
    const { ms, answer } = await stall(
      test.url,
      `POST /api/v2/users/me/keys/tokens HTTP/1.1\r\nHost: 127.0.0.1\r\nService-Session-Token: ${owner.token ?? ''}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"token_name":`,
    );
    assert.ok(ms >= BODY_TIMEOUT_MS - 100 && ms <= BODY_TIMEOUT_MS + SLACK_MS, `cut after ${ms} ms`);
    assert.deepEqual(parseAnswer(answer), { status: 408, body: TIMED_OUT });
  });

  it('cuts a stalled client of the Prometheus listener too', async () => {
    const { ms } = await stall(test.daemon.metricsUrl, 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    assert.ok(ms <= HEADER_TIMEOUT_MS + SLACK_MS, `cut after ${ms} ms`);
  });

  it('leaves WebSockets and server-sent event streams open past both timeouts', async () => {
    const { template } = await createEchoTemplate(owner, 'streams', { apply: { resources: [{ name: 'box', type: 'echo' }] } });
    const workspace = await owner.createWorkspace('me', { template_id: template.id, name: 'streams' });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);

    const socket = await owner.openSocket('/debug/ws');
    const echoed: string[] = [];
    socket.on('message', (data: Buffer) => echoed.push(data.toString('utf8')));
    socket.resume();
    const events: string[] = [];
    const stream = await new Promise<IncomingMessage>((resolve, reject) => {
      const get = request(
        `${test.url}/api/v2/workspaces/${workspace.id}/watch`,
        { headers: { 'service-session-token': owner.token ?? '' } },
        resolve,
      );
      get.on('error', reject);
      get.end();
    });
    stream.on('data', (chunk: Buffer) => events.push(chunk.toString('utf8')));

    // Past both timeouts and the server's next check of its connections.
    await new Promise((resolve) => setTimeout(resolve, BODY_TIMEOUT_MS + SLACK_MS));
    socket.send('still here');
    await eventually(() => assert.deepEqual(echoed, ['still here']));
    const before = events.length;
    await owner.updateWorkspaceTtl(workspace.id, 3_600_000);
    await eventually(() =>
      assert.ok(
        events.slice(before).some((event) => event.startsWith('event: data')),
        events.join(''),
      ),
    );
    assert.equal(stream.destroyed, false);
    socket.close();
    stream.destroy();
  });
});
