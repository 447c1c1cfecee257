import { Value } from '@sinclair/typebox/value';
import type { RawData, WebSocket } from 'ws';
import { DaemonToAgentMessage, type AgentMessage } from '../sdk/wire/agent-protocol.js';
import { closeSocket } from '../lib/close-socket.js';
import { reconnectLoop, type ReconnectBackoff } from '../lib/reconnect.js';
import { StateChanges } from '../lib/state-changes.js';
import type { AgentLogger } from './agent-logger.js';
import { dialDaemon } from './dial-daemon.js';

/** How to reach the daemon's agent rpc endpoint, and how patiently. */
export interface AgentConnectionOptions {
  /** The deployment's base URL, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  /** The agent token, sent in the `Service-Session-Token` header. */
  readonly token: string;
  readonly logger: AgentLogger;
  /** Called for each message of the daemon that fits the protocol. */
  readonly onMessage: (message: DaemonToAgentMessage) => void;
  /** Called each time the daemon refuses the token (401): the agent's build was replaced. */
  readonly onUnauthorized?: () => void;
  /** Reconnect delays double from `initialMs` (250) to `maxMs` (10 000), jittered down by up to half. */
  readonly reconnect?: ReconnectBackoff;
  /** How often we ping the daemon (15 000 ms); a missing pong by the next ping drops the connection. */
  readonly heartbeatMs?: number;
}

/** Messages kept while disconnected; the oldest go first past this (an agent offline for days). */
const MAX_BACKLOG = 10_000;
/** How long a closing socket may take before it is cut. */
const CLOSE_GRACE_MS = 1000;

/**
 * The agent's rpc WebSocket to `/api/v2/workspaceagents/me/rpc`. It reconnects with jittered
 * exponential backoff, keeps a 15 s ping/pong heartbeat, and delivers what it is given in order:
 * messages sent while disconnected (or not yet written when a connection dropped) are sent first
 * after reconnecting. Stats are the exception: a stale counter report is worth nothing.
 */
export class AgentConnection {
  readonly #options: AgentConnectionOptions;
  readonly #stopping = new AbortController();
  readonly #changes = new StateChanges();
  readonly #loop: Promise<void>;
  #socket: WebSocket | undefined;
  /** Not yet on an open socket, in order. */
  #backlog: AgentMessage[] = [];
  /** Written to the socket, not yet confirmed flushed; moved back to the backlog if it drops. */
  #unconfirmed: AgentMessage[] = [];
  #connections = 0;
  #latencyMs = 0;

  constructor(options: AgentConnectionOptions) {
    this.#options = options;
    this.#loop = this.#connectLoop();
  }

  get connected(): boolean {
    return this.#socket !== undefined && this.#socket.readyState === this.#socket.OPEN;
  }

  /** The round trip of the last heartbeat, in milliseconds (0 before the first). */
  get latencyMs(): number {
    return this.#latencyMs;
  }

  /** How many connections have been opened so far. */
  get connections(): number {
    return this.#connections;
  }

  /** True when every message given to `send` has been handed to the network. */
  get drained(): boolean {
    return this.#backlog.length === 0 && this.#unconfirmed.length === 0;
  }

  /** Sends now, or after the next (re)connect. */
  send(message: AgentMessage): void {
    if (this.connected && this.#backlog.length === 0) {
      this.#write(message);
      return;
    }
    // Reports that the next one supersedes are not worth keeping: they would crowd out lifecycle changes.
    if (message.type === 'stats' || message.type === 'metadata') return;
    this.#backlog.push(message);
    if (this.#backlog.length > MAX_BACKLOG) this.#backlog.shift();
  }

  /** Resolves once everything sent is on the wire, or after `timeoutMs`. */
  waitDrained(timeoutMs: number): Promise<void> {
    return this.#changes.until(() => this.drained, timeoutMs);
  }

  /** Closes the connection and stops reconnecting. */
  async close(): Promise<void> {
    this.#stopping.abort();
    await closeSocket(this.#socket, 'agent stopped', CLOSE_GRACE_MS);
    await this.#loop;
  }

  #connectLoop(): Promise<void> {
    return reconnectLoop({
      signal: this.#stopping.signal,
      backoff: this.#options.reconnect,
      dial: () => dialAgentRpc(this.#options.url, this.#options.token),
      onDialError: (error) => {
        this.#options.logger.warn({ err: error, url: this.#options.url }, 'could not connect to the daemon; retrying');
        if ((error as { status?: unknown }).status === 401) this.#options.onUnauthorized?.();
      },
      serve: (socket) => this.#serve(socket),
      discard: (socket) => socket.close(1000, 'agent stopped'),
    });
  }

  /** Runs one connection; resolves when it closes. */
  #serve(socket: WebSocket): Promise<void> {
    return new Promise((resolve) => {
      this.#socket = socket;
      this.#connections += 1;
      const stopHeartbeat = this.#heartbeat(socket);
      socket.on('message', (data, isBinary) => this.#receive(data, isBinary));
      socket.on('error', (error) => this.#options.logger.warn({ err: error }, 'agent connection error'));
      socket.once('close', (code, reason) => {
        stopHeartbeat();
        this.#socket = undefined;
        // ws confirms writes in order, so what is unconfirmed precedes everything in the backlog.
        this.#backlog = [...this.#unconfirmed, ...this.#backlog];
        this.#unconfirmed = [];
        if (!this.#stopping.signal.aborted)
          this.#options.logger.warn({ code, reason: reason.toString('utf8') }, 'lost the connection to the daemon; reconnecting');
        this.#changes.notify();
        resolve();
      });
      socket.resume();
      this.#options.logger.info({ url: this.#options.url }, 'connected to the daemon');
      for (const message of this.#backlog.splice(0)) this.#write(message);
      this.#changes.notify();
    });
  }

  /** Pings every interval; a peer that has not answered the previous ping is gone. */
  #heartbeat(socket: WebSocket): () => void {
    let alive = true;
    let pingedAt = 0;
    socket.on('pong', () => {
      alive = true;
      if (pingedAt > 0) this.#latencyMs = Date.now() - pingedAt;
    });
    const timer = setInterval(() => {
      if (!alive) {
        this.#options.logger.warn({}, 'the daemon stopped answering pings; reconnecting');
        socket.terminate();
        return;
      }
      alive = false;
      pingedAt = Date.now();
      socket.ping();
    }, this.#options.heartbeatMs ?? 15_000);
    timer.unref();
    return () => clearInterval(timer);
  }

  #receive(data: RawData, isBinary: boolean): void {
    const message = isBinary ? undefined : parseDaemonMessage(rawText(data));
    if (message === undefined) {
      this.#options.logger.warn({}, 'ignoring a message from the daemon that is not part of the protocol');
      return;
    }
    if (message.type === 'error') {
      this.#options.logger.warn({ message: message.message }, 'the daemon refused a message');
      return;
    }
    this.#options.onMessage(message);
  }

  #write(message: AgentMessage): void {
    const socket = this.#socket;
    if (socket === undefined || socket.readyState !== socket.OPEN) {
      this.#backlog.push(message);
      return;
    }
    this.#unconfirmed.push(message);
    socket.send(JSON.stringify(message), (error) => {
      // On error the close handler requeues it; a confirmed one is done.
      if (error) return;
      const index = this.#unconfirmed.indexOf(message);
      if (index >= 0) this.#unconfirmed.splice(index, 1);
      this.#changes.notify();
    });
  }
}

/** Opens the rpc WebSocket, paused: the daemon sends the manifest at once, held until the caller listens. */
function dialAgentRpc(url: string, token: string): Promise<WebSocket> {
  return dialDaemon(url, token, '/workspaceagents/me/rpc', 'the agent connection');
}

function parseDaemonMessage(text: string): DaemonToAgentMessage | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return Value.Check(DaemonToAgentMessage, value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}
