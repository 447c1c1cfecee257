import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { RawData, WebSocket } from 'ws';
import type { AgentManifest, AgentMessage, DaemonToAgentMessage, RelayTarget } from '../../sdk/wire/index.js';

/** What a set of simulated agents did, summed over all of them. */
export interface SimulatedAgentCounters {
  connectedNow: number;
  everConnected: number;
  connectFailures: number;
  disconnects: number;
  reconnects: number;
  pingsReceived: number;
  daemonErrors: number;
  statsSent: number;
  metadataSent: number;
  streamsOpened: number;
  streamsRefused: number;
  bytesEchoed: number;
  logSourceOk: number;
  logSourceFailed: number;
  patchOk: number;
  patchFailed: number;
  readonly firstDaemonErrors: string[];
  readonly patchFailures: Record<string, number>;
  readonly closeCodes: Record<string, number>;
  /** Milliseconds each log PATCH took; the owner may empty it to start a new window. */
  patchLatencies: number[];
}

/** Fresh counters for a set of simulated agents. */
export function newSimulatedAgentCounters(): SimulatedAgentCounters {
  return {
    connectedNow: 0,
    everConnected: 0,
    connectFailures: 0,
    disconnects: 0,
    reconnects: 0,
    pingsReceived: 0,
    daemonErrors: 0,
    statsSent: 0,
    metadataSent: 0,
    streamsOpened: 0,
    streamsRefused: 0,
    bytesEchoed: 0,
    logSourceOk: 0,
    logSourceFailed: 0,
    patchOk: 0,
    patchFailed: 0,
    firstDaemonErrors: [],
    patchFailures: {},
    closeCodes: {},
    patchLatencies: [],
  };
}

/** How a simulated agent behaves. */
export interface SimulatedAgentOptions {
  /** The deployment's URL, as the CLI knows it. */
  readonly url: string;
  readonly counters: SimulatedAgentCounters;
  /** Seconds between stats reports; the manifest's `stats_interval` when undefined. */
  readonly statsIntervalSeconds?: number;
  /** Whether the agent looks busy in its stats (bytes moved, a session open) rather than idle. */
  readonly active?: boolean;
  /** Whether the agent also registers a log source and sends five log lines with every stats report. */
  readonly logs?: boolean;
}

/** The reference agent's reconnect backoff: 250 ms doubling to 10 s. */
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;
/** The close code of a stream whose target cannot be reached (docs/relay-protocol.md). */
const TARGET_UNREACHABLE = 4502;

/**
 * The workspace agent's side of the agent protocol (docs/agent-protocol.md) without a machine: it
 * connects the rpc WebSocket with the agent token, reports startup and lifecycle, then stats and
 * the manifest's metadata items at their intervals, reconnects with backoff as the real agent does,
 * and answers the streams the daemon opens: terminals echo what is typed (so a client measures the
 * daemon's relay and nothing else), `echo` streams echo, anything else is refused as unreachable.
 */
export class SimulatedAgent {
  readonly #token: string;
  readonly #options: SimulatedAgentOptions;
  #socket: WebSocket | undefined;
  #manifest: AgentManifest | undefined;
  #sourceId: string | undefined;
  #startedUp = false;
  #stopping = false;
  #backoff = FIRST_BACKOFF_MS;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #streams = new Set<WebSocket>();

  constructor(token: string, options: SimulatedAgentOptions) {
    this.#token = token;
    this.#options = options;
  }

  /** The agent's id, once a manifest arrived. */
  get agentId(): string | undefined {
    return this.#manifest?.agent_id;
  }

  /** Connects; resolves true once the manifest arrived, false when this attempt failed (it retries on its own). */
  async connect(): Promise<boolean> {
    const { WebSocket } = await import('ws');
    const counters = this.#options.counters;
    return new Promise((resolve) => {
      const socket = new WebSocket(`${wsBase(this.#options.url)}/api/v2/workspaceagents/me/rpc`, {
        headers: { 'Service-Session-Token': this.#token },
        perMessageDeflate: false,
      });
      this.#socket = socket;
      let manifest = false;
      socket.on('ping', () => counters.pingsReceived++);
      socket.on('message', (data, isBinary) => {
        if (isBinary) return;
        const message = JSON.parse(String(data)) as DaemonToAgentMessage;
        if (message.type === 'manifest' && !manifest) {
          manifest = true;
          this.#manifest = message.manifest;
          counters.connectedNow++;
          counters.everConnected++;
          this.#backoff = FIRST_BACKOFF_MS;
          resolve(true);
          void this.#afterManifest();
        } else if (message.type === 'error') {
          counters.daemonErrors++;
          if (counters.firstDaemonErrors.length < 5) counters.firstDaemonErrors.push(message.message);
        } else if (message.type === 'open_stream') {
          void this.#openStream(message.stream_id, message.target);
        } else if (message.type === 'request') {
          // No machine: nothing listens and there are no containers.
          this.#send({
            type: 'response',
            request_id: message.request_id,
            error: { status: 404, message: 'A simulated agent has no machine to ask.', detail: '' },
          });
        }
      });
      socket.once('unexpected-response', (_request, response) => {
        count(counters.closeCodes, `http ${response.statusCode}`);
        response.resume();
        socket.terminate();
      });
      socket.on('error', () => undefined);
      socket.once('close', (code) => {
        count(counters.closeCodes, String(code));
        if (manifest) counters.connectedNow--;
        else {
          counters.connectFailures++;
          resolve(false);
        }
        if (this.#stopping) return;
        if (manifest) counters.disconnects++;
        const wait = this.#backoff;
        this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
        this.#later(wait, () => {
          counters.reconnects++;
          void this.connect();
        });
      });
    });
  }

  /** Disconnects for good, closing its streams. */
  stop(): void {
    this.#stopping = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const stream of this.#streams) stream.terminate();
    this.#socket?.close(1000, 'the scale test is over');
  }

  /** Whether the rpc socket is closed (after `stop`, once the daemon answered the close). */
  get closed(): boolean {
    return !this.#socket || this.#socket.readyState === this.#socket.CLOSED;
  }

  async #afterManifest(): Promise<void> {
    if (!this.#startedUp) {
      this.#startedUp = true;
      this.#send({ type: 'startup', version: 'v2.24.0', expanded_directory: '/home/coder', subsystems: [] });
      this.#send({ type: 'lifecycle', state: 'starting', changed_at: new Date().toISOString() });
      this.#send({ type: 'lifecycle', state: 'ready', changed_at: new Date().toISOString() });
      const intervalMs = (this.#options.statsIntervalSeconds ?? this.#manifest?.stats_interval ?? 30) * 1000;
      // Spread over the interval, so that a thousand agents do not all report at once.
      this.#later(Math.random() * intervalMs, () => this.#every(intervalMs, () => this.#report()));
      const metadata = this.#manifest?.metadata ?? [];
      if (metadata.length > 0) {
        const everyMs = Math.max(1, Math.min(...metadata.map((item) => item.interval || 1))) * 1000;
        this.#later(Math.random() * everyMs, () => this.#every(everyMs, () => this.#sendMetadata()));
      }
    }
    if (this.#options.logs && !this.#sourceId) await this.#registerLogSource();
  }

  #report(): void {
    const counters = this.#options.counters;
    const active = this.#options.active ?? false;
    if (
      this.#send({
        type: 'stats',
        rx_bytes: active ? 1000 + Math.floor(Math.random() * 100_000) : 0,
        tx_bytes: active ? 1000 + Math.floor(Math.random() * 100_000) : 0,
        session_count_ssh: active ? 1 : 0,
        session_count_reconnecting_pty: this.#streams.size,
        session_count_vscode: 0,
        session_count_jetbrains: 0,
        connection_median_latency_ms: active ? 2 + Math.random() * 10 : -1,
      })
    )
      counters.statsSent++;
    if (this.#options.logs && this.#sourceId) this.#sendLogs(this.#sourceId);
  }

  #sendMetadata(): void {
    const now = new Date().toISOString();
    const results = (this.#manifest?.metadata ?? []).map((item) => ({
      key: item.key,
      value: `${item.key} ${Math.floor(Math.random() * 100)}`,
      error: '',
      collected_at: now,
      age: 0,
    }));
    if (this.#send({ type: 'metadata', results })) this.#options.counters.metadataSent++;
  }

  async #registerLogSource(): Promise<void> {
    const counters = this.#options.counters;
    const id = randomUUID();
    try {
      const status = await this.#http('POST', '/workspaceagents/me/log-source', {
        id,
        display_name: 'Startup Script',
        icon: '/emojis/25b6.png',
      });
      if (status === 201) {
        this.#sourceId = id;
        counters.logSourceOk++;
      } else counters.logSourceFailed++;
    } catch {
      counters.logSourceFailed++;
    }
  }

  #sendLogs(sourceId: string): void {
    const counters = this.#options.counters;
    const now = Date.now();
    const logs = Array.from({ length: 5 }, (_, i) => ({
      created_at: new Date(now + i).toISOString(),
      level: 'info',
      output: `[scaletest] step ${i + 1}/5: ${randomBytes(12).toString('hex')} done in ${Math.floor(Math.random() * 900)}ms`,
    }));
    const started = performance.now();
    this.#http('PATCH', '/workspaceagents/me/logs', { log_source_id: sourceId, logs }).then(
      (status) => {
        counters.patchLatencies.push(performance.now() - started);
        if (status === 200) counters.patchOk++;
        else {
          counters.patchFailed++;
          count(counters.patchFailures, `http ${status}`);
        }
      },
      (error: unknown) => {
        counters.patchFailed++;
        count(counters.patchFailures, (error as { cause?: { code?: string } }).cause?.code ?? String(error));
      },
    );
  }

  /** Dials the daemon back for a stream and serves it. */
  async #openStream(streamId: string, target: RelayTarget): Promise<void> {
    const { WebSocket } = await import('ws');
    const counters = this.#options.counters;
    const url = `${wsBase(this.#options.url)}/api/v2/workspaceagents/me/relay?stream_id=${encodeURIComponent(streamId)}`;
    const socket = new WebSocket(url, { headers: { 'Service-Session-Token': this.#token }, perMessageDeflate: false });
    socket.on('error', () => undefined);
    socket.once('open', () => {
      if (target.kind !== 'pty' && target.kind !== 'echo') {
        counters.streamsRefused++;
        socket.close(TARGET_UNREACHABLE, `a simulated agent has no ${target.kind} target`);
        return;
      }
      counters.streamsOpened++;
      this.#streams.add(socket);
      socket.once('close', () => this.#streams.delete(socket));
      // Every stream starts with a ready frame to the daemon (which keeps it from terminal clients).
      socket.send(JSON.stringify({ type: 'ready' }));
      socket.on('message', (data, isBinary) => {
        const bytes = target.kind === 'pty' ? typed(data) : toBuffer(data);
        if (bytes.length === 0) return;
        counters.bytesEchoed += bytes.length;
        socket.send(bytes, { binary: target.kind === 'pty' ? true : isBinary });
      });
    });
  }

  #send(message: AgentMessage): boolean {
    const socket = this.#socket;
    if (!socket || socket.readyState !== socket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  async #http(method: string, path: string, body: unknown): Promise<number> {
    const response = await fetch(`${this.#options.url.replace(/\/$/, '')}/api/v2${path}`, {
      method,
      headers: { 'Service-Session-Token': this.#token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer();
    return response.status;
  }

  #later(ms: number, work: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#stopping) work();
    }, ms);
    this.#timers.add(timer);
  }

  #every(ms: number, work: () => void): void {
    work();
    this.#later(ms, () => this.#every(ms, work));
  }
}

/** What a terminal client typed: the `data` of each JSON object in the frame (resizes carry none). */
function typed(data: RawData): Buffer {
  const text = toBuffer(data).toString('utf8');
  const parts: string[] = [];
  // Clients may send several objects in one frame; each starts with `{"` at the top level.
  for (const piece of text.split(/(?<=\})(?=\{)/)) {
    try {
      const message = JSON.parse(piece) as { data?: unknown };
      if (typeof message.data === 'string') parts.push(message.data);
    } catch {
      // Not JSON: a client that is not a terminal client; nothing to echo.
    }
  }
  return Buffer.from(parts.join(''), 'utf8');
}

function toBuffer(data: RawData): Buffer {
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
}

function wsBase(url: string): string {
  return url.replace(/\/$/, '').replace(/^http/, 'ws');
}

function count(record: Record<string, number>, key: string): void {
  record[key] = (record[key] ?? 0) + 1;
}
