import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { CoveClient } from '../../src/sdk/client.js';
import type { AgentHandle } from '../../src/agent/index.js';
import { startAgentWorkspace } from '../helpers/agent-workspace.js';
import { stop, waitFor } from '../helpers/child-process.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** One span as the OTLP/HTTP JSON export carries it, with the service that sent it. */
interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: string | number;
  readonly boolValue?: boolean;
  readonly doubleValue?: number;
}
interface OtlpAttribute {
  readonly key: string;
  readonly value: OtlpValue;
}
interface OtlpExport {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly OtlpAttribute[] };
    readonly scopeSpans: readonly {
      readonly spans: readonly {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: readonly OtlpAttribute[];
      }[];
    }[];
  }[];
}

function attributesOf(list: readonly OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ''));
  }
  return out;
}

/** An OTLP/HTTP receiver on loopback that keeps every span it is sent (JSON encoding). */
async function startReceiver(): Promise<{ server: Server; url: string; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces' && String(request.headers['content-type']).startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const resourceSpans of body.resourceSpans) {
          const service = String(attributesOf(resourceSpans.resource.attributes)['service.name']);
          for (const scope of resourceSpans.scopeSpans) {
            for (const span of scope.spans) {
              spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                attributes: attributesOf(span.attributes),
              });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans };
}

const jsonLines = (path: string): Record<string, unknown>[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('cove serve --trace exports spans over OTLP and writes its log outputs', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  const root = mkdtempSync(join(tmpdir(), 'cove-e2e-tracing-'));
  const env = {
    COVE_CONFIG_DIR: join(root, 'config'),
    COVE_SECRET_STORE: 'file',
    HOME: join(root, 'home'),
    COVE_TEST_WEAK_PASSWORD_HASHES: '1',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  const jsonLog = join(root, 'logs', 'cove.json');
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: ChildProcess | undefined;
  let provisioner: ChildProcess | undefined;
  let agent: AgentHandle | undefined;
  let url = '';
  let token = '';
  let agentId = '';

  const spansWhere = (what: string, match: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan[]> =>
    eventually(
      () => {
        const found = receiver.spans.filter(match);
        assert.ok(found.length > 0, `no span ${what} among ${receiver.spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
        return found;
      },
      10_000,
      100,
    );

  before(async () => {
    mkdirSync(env.HOME, { recursive: true });
    receiver = await startReceiver();
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const args = ['serve', '--trace', '--http-address', '127.0.0.1:0', '--data-dir', join(root, 'data'), '--provisioner-daemons', '0'];
    server = spawn(COVE, [...args, '--log-json', jsonLog], {
      env: { ...process.env, ...env, ...otel },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await waitFor(server, 'stderr', /cove is listening url=(\S+)/, 'cove serve');
    const anonymous = new CoveClient({ url });
    await anonymous.createFirstUser({ email: 'admin@example.com', username: 'admin', password: STRONG_PASSWORD });
    token = (await anonymous.login('admin@example.com', STRONG_PASSWORD)).session_token;
    // Every job runs on an external provisioner daemon, in a process of its own.
    provisioner = spawn(COVE, ['--url', url, 'provisioner', 'start', '--trace', '--provisioner', 'echo', '--name', 'traced'], {
      env: { ...process.env, ...env, ...otel, COVE_SESSION_TOKEN: token, COVE_CACHE_DIR: join(root, 'cache') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await waitFor(provisioner, 'stderr', /provisioner daemon connected/, 'cove provisioner start');
    const owner = anonymous.withToken(token);
    const workspace = await startAgentWorkspace({ url, owner, member: owner, token: randomUUID(), home: env.HOME });
    agent = workspace.agent;
    agentId = workspace.agentId;
  });

  after(async () => {
    await agent?.stop();
    await stop(provisioner);
    await stop(server);
    await new Promise((r) => receiver.server.close(r));
    rmSync(root, { recursive: true, force: true });
  });

  it("continues the caller's trace in a request span, with its database queries as children", async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const answer = await fetch(`${url}/api/v2/workspaces`, {
      headers: { 'Service-Session-Token': token, traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    assert.equal(answer.status, 200);
    const [request] = await spansWhere('for the request', (span) => span.traceId === traceId && span.parentSpanId === callerSpan);
    assert.equal(request?.name, 'GET /api/v2/workspaces');
    assert.equal(request?.service, 'cove');
    assert.equal(request?.attributes['http.response.status_code'], 200);
    assert.equal(request?.attributes['http.route'], '/api/v2/workspaces');
    const queries = await spansWhere('for its queries', (span) => span.parentSpanId === request?.spanId);
    assert.ok(
      queries.some((span) => span.name === 'SELECT' && span.attributes['db.system.name'] === 'sqlite' && span.traceId === traceId),
      JSON.stringify(queries),
    );
    assert.ok(
      queries.every((span) => !String(span.attributes['db.query.text']).includes(token)),
      'no credential in a query span',
    );
  });

  it("puts a provisioner job's steps on the daemon and the provisioner daemon in one trace", async () => {
    const jobs = await spansWhere('for the build job', (span) => span.name === 'provisioner job workspace_build');
    const job = jobs[0]!;
    assert.equal(job.service, 'cove');
    assert.equal(job.parentSpanId, '', 'a job starts its own trace');
    const inTrace = (span: ReceivedSpan) => span.traceId === job.traceId && span.parentSpanId === job.spanId;
    const build = await spansWhere(
      'of the build on the provisioner daemon',
      (span) => inTrace(span) && span.name === 'build workspace_build',
    );
    assert.equal(build[0]?.service, 'cove-provisionerd');
    assert.equal(build[0]?.attributes['cove.job.outcome'], 'complete');
    await spansWhere('acquiring the job', (span) => inTrace(span) && span.name === 'acquire');
    const complete = await spansWhere('completing the job', (span) => inTrace(span) && span.name === 'complete');
    await spansWhere('of the queries completing it', (span) => span.parentSpanId === complete[0]?.spanId && span.name !== '');
    assert.equal(job.attributes['cove.job.outcome'], 'complete');
  });

  it('traces a relay stream from its opening to its close, with its bytes', async () => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v2/workspaceagents/${agentId}/pty?reconnect=${randomUUID()}`, {
      headers: { 'Service-Session-Token': token },
    });
    let output = '';
    socket.on('message', (data: Buffer) => (output += data.toString()));
    await new Promise((r, j) => socket.once('open', r).once('error', j));
    socket.send(JSON.stringify({ data: 'echo traced-$((6*7))\r' }));
    await eventually(() => assert.match(output, /traced-42/), 10_000, 100);
    socket.close();
    const [stream] = await spansWhere('for the stream', (span) => span.name === 'relay stream');
    assert.equal(stream?.attributes['cove.relay.kind'], 'pty');
    assert.equal(stream?.attributes['cove.agent.id'], agentId);
    assert.ok(Number(stream?.attributes['cove.relay.bytes_to_client']) >= 'traced-42'.length, JSON.stringify(stream));
    assert.ok(Number(stream?.attributes['cove.relay.bytes_to_agent']) > 0);
    const [opened] = await spansWhere('for the request that opened it', (span) => span.spanId === stream?.parentSpanId);
    assert.equal(opened?.name, 'GET /api/v2/workspaceagents/:workspaceagent/pty');
  });

  it('writes JSON lines to --log-json and readable ones to the standard error, without debug lines', async () => {
    const lines = jsonLines(jsonLog);
    assert.ok(lines.some((line) => line['msg'] === 'cove is listening'));
    assert.ok(lines.every((line) => typeof line['level'] === 'number' && Number(line['level']) >= 30));
  });
});

describe('cove serve writes human and JSON logs to files at once, debug lines with --verbose', { skip: THE_SQLITE_RUN_COVERS_IT }, () => {
  it('fills both files', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cove-e2e-logs-'));
    const human = join(root, 'human.log');
    const json = join(root, 'json.log');
    const args = ['--verbose', 'serve', '--http-address', '127.0.0.1:0', '--data-dir', join(root, 'data'), '--provisioner-daemons', '0'];
    const child = spawn(COVE, [...args, '--log-human', human, '--log-json', json], {
      env: { ...process.env, HOME: root, COVE_CONFIG_DIR: join(root, 'config') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      // The first lines are enough: the daemon need not finish starting.
      await eventually(() => assert.match(readFileSync(json, 'utf8'), /database migrated/), 20_000, 100);
      const lines = jsonLines(json);
      assert.ok(
        lines.some((line) => line['level'] === 20 && line['msg'] === 'starting the daemon'),
        'the debug line is written',
      );
      const text = await eventually(() => {
        const read = readFileSync(human, 'utf8');
        assert.match(read, /^\S+ INFO {2}database migrated applied=/m);
        return read;
      });
      assert.match(text, /^\S+ DEBUG starting the daemon /m);
      assert.doesNotMatch(text, /^\{/m, 'no JSON in the human file');
      assert.equal(stderr, '', 'nothing on the standard error');
    } finally {
      await stop(child);
      rmSync(root, { recursive: true, force: true });
    }
  });
});
