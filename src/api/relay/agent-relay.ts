import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import { HttpProblem } from '../../lib/errors.js';
import type { AgentMessage, AgentRequestMethod, DaemonToAgentMessage, RelayTarget } from '../../sdk/wire/index.js';
import { RelayCloseCode } from '../../sdk/wire/index.js';

/** How the relay reaches an agent: its rpc session on this daemon. */
export interface AgentLink {
  send(message: DaemonToAgentMessage): void;
}

/** A stream being relayed, as the debug pages show it. */
export interface RelayedStream {
  readonly id: string;
  readonly agentId: string;
  readonly target: RelayTarget;
  readonly openedAt: Date;
  /** Bytes carried so far, each way. */
  toAgent: number;
  toClient: number;
  /** The exit status of the session the stream carried, once the agent reported it. */
  exitCode?: number;
}

/** What the relay holds right now, for `/debug/coordinator` and `/debug/tailnet`. */
export interface RelaySnapshot {
  readonly agents: readonly { readonly agentId: string; readonly connectedAt: Date }[];
  readonly streams: readonly RelayedStream[];
  readonly pendingStreams: number;
  readonly pendingRequests: number;
}

type AgentResponse = Extract<AgentMessage, { type: 'response' }>;

/** Why a stream could not be opened, with the WebSocket close code to pass on. */
export class RelayStreamError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Pending<T> {
  readonly agentId: string;
  readonly resolve: (value: T) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** An open stream from the agent: its socket, and what it sent before anyone listened. */
export interface AgentStream {
  readonly id: string;
  readonly socket: WebSocket;
  /** Stops buffering and returns the messages received so far; call once, when attaching a listener. */
  takeEarly(): Buffer[];
}

/** How long an agent has to dial back for a stream, and to answer a request. */
const STREAM_OPEN_TIMEOUT_MS = 15_000;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The daemon's half of the relay: which agents are connected to this daemon, and the streams and
 * requests waiting on them. A stream is asked for over the agent's rpc socket; the agent dials
 * `/workspaceagents/me/relay` with the stream id, connects the target, and sends one text frame
 * `{"type":"ready"}` (or closes with a 45xx code and the reason). Only then is the socket handed
 * to whoever asked.
 */
export class AgentRelay {
  readonly #links = new Map<string, AgentLink>();
  readonly #connectedAt = new Map<string, Date>();
  readonly #relayed = new Set<RelayedStream>();
  /** Links that are the daemon's own health probe, not workspace agents: kept out of what is shown and counted. */
  readonly #probes = new Set<string>();
  /** Streams relayed since start, and the bytes they carried each way, for the metrics. */
  readonly totals = { streams: 0, bytesToAgent: 0, bytesToClient: 0 };
  #localUrl = '';

  /** The address other replicas reach this one at; known once the daemon listens. */
  get localUrl(): string {
    return this.#localUrl;
  }

  set localUrl(url: string) {
    this.#localUrl = url.replace(/\/+$/, '');
  }
  readonly #streams = new Map<string, Pending<AgentStream>>();
  readonly #requests = new Map<string, Pending<unknown>>();

  /**
   * Makes an agent reachable; the returned function undoes it (only if no newer link replaced it).
   * A `probe` is the health check's stand-in for an agent: it goes through the same relay but is
   * neither shown on the debug pages nor counted as a connected agent.
   */
  attach(agentId: string, link: AgentLink, options: { readonly probe?: boolean } = {}): () => void {
    this.#links.set(agentId, link);
    if (options.probe) this.#probes.add(agentId);
    else this.#connectedAt.set(agentId, new Date());
    return () => {
      if (this.#links.get(agentId) !== link) return;
      this.#links.delete(agentId);
      this.#connectedAt.delete(agentId);
      this.#probes.delete(agentId);
      this.#failAll(agentId);
    };
  }

  /** Whether an agent is connected to this daemon. */
  isConnected(agentId: string): boolean {
    return this.#links.has(agentId);
  }

  /** How many agents are connected to this daemon. */
  get connectedAgents(): number {
    return this.#connectedAt.size;
  }

  /** How many streams are being relayed now. */
  get openStreams(): number {
    return this.#relayed.size;
  }

  /** Records a stream while it is relayed; the returned function forgets it. */
  track(stream: AgentStream, agentId: string, target: RelayTarget): { readonly relayed: RelayedStream; readonly done: () => void } {
    const relayed: RelayedStream = { id: stream.id, agentId, target, openedAt: new Date(), toAgent: 0, toClient: 0 };
    this.#relayed.add(relayed);
    this.totals.streams++;
    return { relayed, done: () => this.#relayed.delete(relayed) };
  }

  /** The agent reported the exit status of the session a stream of it carries (the last one wins). */
  reportExit(agentId: string, streamId: string, exitCode: number): void {
    for (const relayed of this.#relayed) if (relayed.id === streamId && relayed.agentId === agentId) relayed.exitCode = exitCode;
  }

  /** The agents connected here and the streams open now. */
  snapshot(): RelaySnapshot {
    return {
      agents: [...this.#connectedAt].map(([agentId, connectedAt]) => ({ agentId, connectedAt })),
      streams: [...this.#relayed],
      pendingStreams: this.#streams.size,
      pendingRequests: this.#requests.size,
    };
  }

  /** Opens a stream to `target` inside the agent's workspace; resolves with the agent's socket once the target is connected. */
  openStream(agentId: string, target: RelayTarget, timeoutMs = STREAM_OPEN_TIMEOUT_MS): Promise<AgentStream> {
    const link = this.#links.get(agentId);
    if (!link) return Promise.reject(new RelayStreamError(RelayCloseCode.agentGone, 'the agent is not connected'));
    const streamId = randomUUID();
    const opened = this.#wait(
      this.#streams,
      streamId,
      agentId,
      timeoutMs,
      () => new RelayStreamError(RelayCloseCode.agentTimeout, 'the agent did not open the stream in time'),
    );
    link.send({ type: 'open_stream', stream_id: streamId, target });
    return opened;
  }

  /**
   * The agent dialled back for a stream. Returns false when no such stream waits for this agent
   * (the caller closes the socket). The socket must not have been read from yet.
   */
  acceptStream(agentId: string, streamId: string, socket: WebSocket): boolean {
    const pending = this.#streams.get(streamId);
    if (!pending || pending.agentId !== agentId) return false;
    this.#streams.delete(streamId);
    clearTimeout(pending.timer);
    let ready = false;
    const early: Buffer[] = [];
    const onClose = (code: number, reason: Buffer): void => {
      socket.off('message', onMessage);
      pending.reject(
        new RelayStreamError(
          code >= 4000 ? code : RelayCloseCode.targetUnreachable,
          reason.toString('utf8') || 'the agent closed the stream',
        ),
      );
    };
    // Messages can follow the ready frame in the same read; they wait here until the pipe takes them.
    const onMessage = (data: RawData, isBinary: boolean): void => {
      if (ready) {
        early.push(rawBuffer(data));
        return;
      }
      socket.off('close', onClose);
      if (!isBinary && isReady(data)) {
        ready = true;
        pending.resolve({
          id: streamId,
          socket,
          takeEarly: () => {
            socket.off('message', onMessage);
            return early.splice(0);
          },
        });
        return;
      }
      socket.off('message', onMessage);
      socket.close(1002, 'the stream must begin with a ready message');
      pending.reject(new RelayStreamError(RelayCloseCode.targetUnreachable, 'the agent broke the relay protocol'));
    };
    socket.on('message', onMessage);
    socket.once('close', onClose);
    return true;
  }

  /** Asks the agent a question; rejects with an HttpProblem carrying the agent's answer or the timeout. */
  async request<T>(
    agentId: string,
    method: AgentRequestMethod,
    params: Record<string, string> = {},
    timeoutMs = REQUEST_TIMEOUT_MS,
  ): Promise<T> {
    const link = this.#links.get(agentId);
    if (!link) throw new HttpProblem(400, 'Agent state is "disconnected", it must be in the "connected" state.');
    const requestId = randomUUID();
    const answered = this.#wait(
      this.#requests,
      requestId,
      agentId,
      timeoutMs,
      () =>
        new HttpProblem(504, 'The workspace agent did not answer in time.', {
          detail: `No answer to "${method}" within ${timeoutMs / 1000} s.`,
        }),
    );
    link.send({ type: 'request', request_id: requestId, method, params });
    return (await answered) as T;
  }

  /** An agent answered a request. */
  answer(agentId: string, response: AgentResponse): void {
    const pending = this.#requests.get(response.request_id);
    if (!pending || pending.agentId !== agentId) return;
    this.#requests.delete(response.request_id);
    clearTimeout(pending.timer);
    if (response.error) pending.reject(new HttpProblem(response.error.status, response.error.message, { detail: response.error.detail }));
    else pending.resolve(response.result);
  }

  #wait<T>(table: Map<string, Pending<T>>, id: string, agentId: string, timeoutMs: number, timeoutError: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        table.delete(id);
        reject(timeoutError());
      }, timeoutMs);
      timer.unref();
      table.set(id, { agentId, resolve, reject, timer });
    });
  }

  /** The agent went away: nothing it was asked will be answered. */
  #failAll(agentId: string): void {
    for (const [table, error] of [
      [this.#streams, () => new RelayStreamError(RelayCloseCode.agentGone, 'the agent disconnected')],
      [this.#requests, () => new HttpProblem(502, 'The workspace agent disconnected before answering.')],
    ] as const) {
      for (const [id, pending] of table as Map<string, Pending<unknown>>) {
        if (pending.agentId !== agentId) continue;
        table.delete(id);
        clearTimeout(pending.timer);
        pending.reject(error());
      }
    }
  }
}

/** One buffer of a `ws` message, whatever form it arrived in. */
export function rawBuffer(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}

function isReady(data: RawData): boolean {
  try {
    const text = rawBuffer(data).toString('utf8');
    return (JSON.parse(text) as { type?: unknown }).type === 'ready';
  } catch {
    return false;
  }
}
