import type { RawData, WebSocket } from 'ws';
import { tracer } from '../../lib/trace-context.js';
import { rawBuffer, type AgentStream } from './agent-relay.js';

/** Past this many unsent bytes on one side, the other side stops being read until it drains. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
const LOW_WATER_BYTES = 1024 * 1024;

/** Counts what crosses the relay, per direction. */
export interface PipeCounters {
  /** Bytes from the client to the agent. */
  toAgent?(bytes: number): void;
  /** Bytes from the agent to the client. */
  toClient?(bytes: number): void;
}

/**
 * Joins a client's socket and an agent's stream: every message goes across as it came (binary or
 * text), with backpressure, and a close on either side closes the other with the same code when
 * that code may be sent. Resolves when both are closed.
 */
export function pipeSockets(
  client: WebSocket,
  agent: AgentStream,
  given: PipeCounters = {},
  attributes: Readonly<Record<string, string>> = {},
): Promise<void> {
  const early = agent.takeEarly();
  const traced = traceStream(given, attributes);
  const counters = traced.counters;
  const closed = Promise.all([whenClosed(client), whenClosed(agent.socket)]).then(traced.end);
  for (const data of early) forward(agent.socket, client, data, true, counters.toClient);
  client.on('message', (data, isBinary) => forward(client, agent.socket, data, isBinary, counters.toAgent));
  agent.socket.on('message', (data, isBinary) => forward(agent.socket, client, data, isBinary, counters.toClient));
  client.on('close', (code, reason) => closeWith(agent.socket, code, reason));
  agent.socket.on('close', (code, reason) => closeWith(client, code, reason));
  client.on('error', () => agent.socket.terminate());
  agent.socket.on('error', () => client.terminate());
  agent.socket.resume();
  client.resume();
  if (client.readyState !== client.OPEN) closeWith(agent.socket, 1000, Buffer.from('the client went away'));
  return closed;
}

/**
 * A span from the stream's opening to its close, with the bytes each way, child of the request
 * that opened it. Without tracing the counters are the caller's own, untouched.
 */
function traceStream(counters: PipeCounters, attributes: Readonly<Record<string, string>>): { counters: PipeCounters; end: () => void } {
  const span = tracer.startSpan('relay stream', { attributes });
  if (!span.isRecording()) return { counters, end: () => undefined };
  let toAgent = 0;
  let toClient = 0;
  return {
    counters: {
      toAgent: (bytes) => {
        toAgent += bytes;
        counters.toAgent?.(bytes);
      },
      toClient: (bytes) => {
        toClient += bytes;
        counters.toClient?.(bytes);
      },
    },
    end: () => {
      span.setAttributes({ 'cove.relay.bytes_to_agent': toAgent, 'cove.relay.bytes_to_client': toClient });
      span.end();
    },
  };
}

function forward(from: WebSocket, to: WebSocket, data: RawData, isBinary: boolean, count: ((bytes: number) => void) | undefined): void {
  if (to.readyState !== to.OPEN) return;
  const buffer = rawBuffer(data);
  count?.(buffer.length);
  to.send(buffer, { binary: isBinary }, () => {
    if (from.isPaused && to.bufferedAmount < LOW_WATER_BYTES) from.resume();
  });
  if (to.bufferedAmount > HIGH_WATER_BYTES) from.pause();
}

/** Codes an endpoint may send itself; the others (1005, 1006, 1015) only describe what happened. */
function sendableCode(code: number): number {
  if (code === 1000 || code === 1001 || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999)) return code;
  return 1000;
}

function closeWith(socket: WebSocket, code: number, reason: Buffer): void {
  if (socket.readyState === socket.CLOSED || socket.readyState === socket.CLOSING) return;
  // A paused socket would never read the answer to its close; a close reason is at most 123 bytes.
  socket.resume();
  socket.close(sendableCode(code), reason.subarray(0, 123));
}

function whenClosed(socket: WebSocket): Promise<void> {
  if (socket.readyState === socket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}
