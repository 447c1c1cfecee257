import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { silentLogger, startAgent, type AgentHandle } from '../../src/agent/index.js';
import type {
  AgentManifest,
  AgentMessage,
  ManifestScript,
  PatchAgentLogsRequest,
  PostLogSourceRequest,
} from '../../src/sdk/wire/agent-protocol.js';
import { VERSION } from '../../src/lib/version.js';

const scratch = await mkdtemp(join(tmpdir(), 'cove-agent-'));
after(() => rm(scratch, { recursive: true, force: true }));

const TOKEN = 'agent-token-123';
let counter = 0;

function script(overrides: Partial<ManifestScript> & Pick<ManifestScript, 'script'>): ManifestScript {
  counter += 1;
  return {
    id: `script-${counter}`,
    log_source_id: `source-${counter}`,
    display_name: `Script ${counter}`,
    cron: '',
    run_on_start: true,
    run_on_stop: false,
    start_blocks_login: false,
    timeout: 0,
    log_path: '',
    ...overrides,
  };
}

function manifest(scripts: ManifestScript[], overrides: Partial<AgentManifest> = {}): AgentManifest {
  return {
    agent_id: 'agent-1',
    agent_name: 'main',
    owner_username: 'alice',
    workspace_id: 'ws-1',
    workspace_name: 'dev',
    directory: join(scratch, `home-${++counter}`, 'project'),
    environment_variables: { GREETING: 'hello' },
    scripts,
    apps: [],
    stats_interval: 0,
    ...overrides,
  };
}

/** A daemon that speaks the agent contract, records what the agent sends, and answers logs with `logStatus`. */
class FakeDaemon {
  readonly messages: AgentMessage[] = [];
  readonly logs: PatchAgentLogsRequest[] = [];
  readonly sources: PostLogSourceRequest[] = [];
  readonly tokens: string[] = [];
  readonly events = new EventEmitter();
  logStatus = 200;
  connections = 0;
  readonly #http: Server;
  readonly #wss = new WebSocketServer({ noServer: true });
  #socket: WebSocket | undefined;

  constructor(readonly manifest: AgentManifest) {
    this.#http = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        this.tokens.push(String(request.headers['service-session-token']));
        if (request.method === 'PATCH' && request.url === '/api/v2/workspaceagents/me/logs') {
          if (this.logStatus === 200) this.logs.push(JSON.parse(body) as PatchAgentLogsRequest);
          response.writeHead(this.logStatus, { 'content-type': 'application/json' }).end('{}');
        } else if (request.method === 'POST' && request.url === '/api/v2/workspaceagents/me/log-source') {
          this.sources.push(JSON.parse(body) as PostLogSourceRequest);
          response.writeHead(201, { 'content-type': 'application/json' }).end(body);
        } else {
          response.writeHead(404).end();
        }
        this.events.emit('change');
      });
    });
    this.#http.on('upgrade', (request, socket, head) => {
      if (request.url !== '/api/v2/workspaceagents/me/rpc' || request.headers['service-session-token'] !== TOKEN) {
        socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
        return;
      }
      this.#wss.handleUpgrade(request, socket, head, (ws) => {
        this.connections += 1;
        this.#socket = ws;
        ws.on('message', (data) => {
          this.messages.push(JSON.parse(data.toString()) as AgentMessage);
          this.events.emit('change');
        });
        ws.send(JSON.stringify({ type: 'manifest', manifest: this.manifest }));
        this.events.emit('change');
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#http.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#http.address() as AddressInfo).port}`;
  }

  /** Drops the agent's socket without a closing handshake. */
  drop(): void {
    this.#socket?.terminate();
  }

  lifecycle(): string[] {
    return this.messages.flatMap((m) => (m.type === 'lifecycle' ? [m.state] : []));
  }

  linesOf(sourceId: string): { level: string; output: string }[] {
    return this.logs.filter((b) => b.log_source_id === sourceId).flatMap((b) => b.logs.map(({ level, output }) => ({ level, output })));
  }

  /** Resolves once `done()` holds; fails the test after 10 s. */
  until(done: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off('change', check);
        reject(new Error(`timed out waiting for ${what}; lifecycle=${this.lifecycle().join(',')}`));
      }, 10_000);
      const check = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        this.events.off('change', check);
        resolve();
      };
      this.events.on('change', check);
      check();
    });
  }

  async close(): Promise<void> {
    for (const client of this.#wss.clients) client.terminate();
    this.#wss.close();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
  }
}

const fast = { reconnect: { initialMs: 20, maxMs: 100 }, logFlushMs: 20, killGraceMs: 200, pipeGraceMs: 500, shutdownGraceMs: 2000 };

async function run(daemonManifest: AgentManifest, env: Record<string, string> = {}): Promise<{ daemon: FakeDaemon; agent: AgentHandle }> {
  const daemon = new FakeDaemon(daemonManifest);
  const url = await daemon.listen();
  const agent = startAgent({
    url,
    token: TOKEN,
    logger: silentLogger,
    env: { PATH: process.env['PATH'], HOME: scratch, COVE_AGENT_TOKEN: TOKEN, ...env },
    timing: fast,
  });
  after(async () => {
    await agent.stop();
    await daemon.close();
  });
  return { daemon, agent };
}

describe('workspace agent', () => {
  it('reports startup, runs start scripts, ships their logs by source and level, and reports start_error', async () => {
    const ok = script({ script: 'echo one; echo two >&2; echo three', log_path: 'ok.log' });
    const failing = script({ script: 'echo boom >&2; exit 3' });
    const m = manifest([ok, failing]);
    const { daemon, agent } = await run(m);
    await agent.waitForLifecycle('start_error');
    await daemon.until(() => daemon.linesOf(ok.log_source_id).length === 3 && daemon.linesOf(failing.log_source_id).length === 1, 'logs');

    const startup = daemon.messages.find((message) => message.type === 'startup');
    assert.deepEqual(startup, { type: 'startup', version: VERSION, expanded_directory: m.directory, subsystems: [] });
    assert.deepEqual(daemon.lifecycle(), ['created', 'starting', 'start_error']);
    // stdout and stderr are separate pipes: only the order within each is guaranteed.
    const okLines = daemon.linesOf(ok.log_source_id);
    assert.deepEqual(
      okLines.filter((l) => l.level === 'info').map((l) => l.output),
      ['one', 'three'],
    );
    assert.deepEqual(
      okLines.filter((l) => l.level === 'error').map((l) => l.output),
      ['two'],
    );
    assert.deepEqual(daemon.linesOf(failing.log_source_id), [{ level: 'error', output: 'boom' }]);
    assert.deepEqual(new Set(daemon.sources.map((s) => s.id)), new Set([ok.log_source_id, failing.log_source_id]));
    assert.equal(daemon.sources.find((s) => s.id === ok.log_source_id)?.display_name, ok.display_name);
    assert.ok(daemon.tokens.every((token) => token === TOKEN));

    const completed = daemon.messages.filter((message) => message.type === 'script_completed');
    assert.deepEqual(
      completed.map((c) => [c.script_id, c.stage, c.status, c.exit_code]).sort(),
      [
        [ok.id, 'start', 'ok', 0],
        [failing.id, 'start', 'exit_failure', 3],
      ].sort(),
    );
    assert.equal(
      await readFile(join(m.directory, 'ok.log'), 'utf8').then((text) => text.split('\n').filter(Boolean).sort().join(',')),
      'one,three,two',
    );
  });

  it('reports ready when every start script succeeds, with the session environment', async () => {
    const env = script({
      script:
        'echo "$COVE $COVE_WORKSPACE_NAME $COVE_WORKSPACE_OWNER_NAME $COVE_WORKSPACE_AGENT_NAME $GREETING token=${COVE_AGENT_TOKEN:-none}"; pwd',
    });
    const m = manifest([env]);
    const { daemon, agent } = await run(m);
    await agent.waitForLifecycle('ready');
    await daemon.until(() => daemon.linesOf(env.log_source_id).length === 2, 'logs');
    assert.equal(agent.lifecycle, 'ready');
    assert.deepEqual(daemon.lifecycle(), ['created', 'starting', 'ready']);
    assert.deepEqual(daemon.linesOf(env.log_source_id), [
      { level: 'info', output: `true dev alice main hello token=${TOKEN}` },
      { level: 'info', output: m.directory },
    ]);
  });

  it('runs cron scripts on their schedule once startup is over', async () => {
    const ticking = script({ script: 'echo tick', run_on_start: false, cron: '* * * * * *' });
    const { daemon, agent } = await run(manifest([ticking]));
    await agent.waitForLifecycle('ready');
    await daemon.until(() => daemon.linesOf(ticking.log_source_id).length >= 2, 'two cron runs');
    const runs = daemon.messages.filter((m) => m.type === 'script_completed' && m.script_id === ticking.id);
    assert.ok(runs.length >= 1 && runs.every((r) => r.type === 'script_completed' && r.stage === 'cron' && r.status === 'ok'));
    assert.deepEqual(daemon.lifecycle(), ['created', 'starting', 'ready'], 'a cron script does not hold up startup');
  });

  it('reports start_timeout when a script runs past its timeout', async () => {
    const slow = script({ script: 'sleep 30', timeout: 0.2 });
    const { daemon, agent } = await run(manifest([slow]));
    await agent.waitForLifecycle('start_timeout');
    await daemon.until(() => daemon.messages.some((m) => m.type === 'script_completed'), 'script_completed');
    assert.deepEqual(daemon.lifecycle(), ['created', 'starting', 'start_timeout']);
    const completed = daemon.messages.find((m) => m.type === 'script_completed');
    assert.equal(completed?.type === 'script_completed' ? completed.status : undefined, 'timed_out');
  });

  it('reconnects after the daemon drops it, without repeating lifecycle or logs', async () => {
    // Output spread over time, so the drop lands while the script is still writing.
    const chatty = script({ script: 'for i in 1 2 3 4 5 6; do echo line$i; sleep 0.1; done' });
    const { daemon, agent } = await run(manifest([chatty]));
    await daemon.until(() => daemon.lifecycle().includes('starting'), 'starting');
    daemon.drop();
    await daemon.until(() => daemon.connections >= 2, 'a reconnect');
    await agent.waitForLifecycle('ready');
    await daemon.until(
      () => daemon.lifecycle().includes('ready') && daemon.linesOf(chatty.log_source_id).length >= 6,
      'ready and all logs',
    );
    assert.deepEqual(daemon.lifecycle(), ['created', 'starting', 'ready']);
    assert.deepEqual(
      daemon.linesOf(chatty.log_source_id).map((l) => l.output),
      ['line1', 'line2', 'line3', 'line4', 'line5', 'line6'],
    );
    assert.equal(daemon.messages.filter((m) => m.type === 'startup').length, 1);
  });

  it('keeps lifecycle reports made while disconnected and sends them in order', async () => {
    const quick = script({ script: 'sleep 0.3' });
    const { daemon, agent } = await run(manifest([quick]));
    await daemon.until(() => daemon.lifecycle().includes('starting'), 'starting');
    daemon.drop();
    await agent.waitForLifecycle('ready');
    await daemon.until(() => daemon.lifecycle().includes('ready'), 'ready after reconnecting');
    assert.deepEqual(daemon.lifecycle(), ['created', 'starting', 'ready']);
  });

  it('stops: runs stop scripts and reports shutting_down then off', async () => {
    const marker = join(scratch, `stopped-${++counter}`);
    const stop = script({ script: `echo bye; touch ${marker}`, run_on_start: false, run_on_stop: true });
    const { daemon, agent } = await run(manifest([stop]));
    await agent.waitForLifecycle('ready');
    await agent.stop();
    assert.deepEqual(daemon.lifecycle(), ['created', 'starting', 'ready', 'shutting_down', 'off']);
    assert.deepEqual(daemon.linesOf(stop.log_source_id), [{ level: 'info', output: 'bye' }]);
    await readFile(marker);
    const completed = daemon.messages.filter((m) => m.type === 'script_completed');
    assert.deepEqual(
      completed.map((c) => (c.type === 'script_completed' ? [c.stage, c.status] : [])),
      [['stop', 'ok']],
    );
  });

  it('stops sending logs once the daemon answers 413', async () => {
    const noisy = script({ script: 'echo a; sleep 0.2; echo b' });
    const daemon = new FakeDaemon(manifest([noisy]));
    daemon.logStatus = 413;
    const url = await daemon.listen();
    const agent = startAgent({ url, token: TOKEN, logger: silentLogger, env: { PATH: process.env['PATH'], HOME: scratch }, timing: fast });
    after(async () => {
      await agent.stop();
      await daemon.close();
    });
    await agent.waitForLifecycle('ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const patches = daemon.tokens.length - daemon.sources.length;
    assert.equal(patches, 1, 'one refused PATCH, then nothing');
  });
});
