import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { createWebSocketStream } from 'ws';
import { rawBuffer, type AgentStream } from '../relay/agent-relay.js';
import type { PipeCounters } from '../relay/pipe-sockets.js';

/**
 * One HTTP exchange (or one WebSocket upgrade) carried over a relay stream: the stream is the
 * TCP connection to the app inside the workspace. Node's HTTP client writes the request and parses
 * the answer; the answer is streamed back to the caller as it comes.
 */

/** Headers that describe one connection, not the message: never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

/**
 * The relay stream as a byte duplex: what the agent sent before anyone listened comes first.
 * `counters` hear the bytes each way as they are framed, without slowing them.
 */
export function streamDuplex(stream: AgentStream, counters: PipeCounters = {}): Duplex {
  const early = stream.takeEarly();
  for (const chunk of early) counters.toClient?.(chunk.length);
  if (counters.toClient) stream.socket.on('message', (data) => counters.toClient?.(rawBuffer(data).length));
  if (counters.toAgent) countSent(stream.socket, counters.toAgent);
  const duplex = createWebSocketStream(stream.socket);
  for (const chunk of early) duplex.push(chunk);
  stream.socket.resume();
  return duplex;
}

/** Counts what is sent on a socket: the duplex over it writes through `send`, one chunk a call. */
function countSent(socket: AgentStream['socket'], count: (bytes: number) => void): void {
  const send = socket.send.bind(socket) as (data: unknown, ...rest: unknown[]) => void;
  (socket as unknown as { send: (data: unknown, ...rest: unknown[]) => void }).send = (data, ...rest) => {
    count(Buffer.isBuffer(data) || data instanceof Uint8Array ? data.length : Buffer.byteLength(String(data)));
    send(data, ...rest);
  };
}

/** Request headers minus the hop-by-hop ones and those the `Connection` header names. */
export function endToEndHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
  );
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    kept[name] = value;
  }
  return kept;
}

/** A flat raw header list (`[name, value, ...]`) minus the hop-by-hop headers. */
function endToEndRawHeaders(raw: readonly string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'connection') for (const name of (raw[i + 1] ?? '').split(',')) named.add(name.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    kept.push(name, raw[i + 1] ?? '');
  }
  return kept;
}

/** What to send upstream. */
export interface UpstreamRequest {
  readonly method: string;
  /** Path and query, as the app sees them. */
  readonly path: string;
  readonly headers: OutgoingHttpHeaders;
  /** Speak TLS to the app (certificates inside the workspace are not checked: the relay is the trust boundary). */
  readonly https: boolean;
  /** For TLS: the name the app's certificate is for. */
  readonly servername: string;
  /** What of the app's answer headers (raw, `[name, value, ...]`) may reach the caller, upgrades included. */
  readonly answerHeaders: (raw: readonly string[]) => string[];
}

/** The caller's side of an upgrade: its socket, and what it sent after the request head. */
export interface UpgradeSide {
  readonly socket: Duplex;
  readonly head: Buffer;
}

/** Called once when the app could not be reached before any answer was written. */
export type FailureHandler = (error: Error) => void;

/**
 * Sends `incoming` (streamed) to the app over `connection` and streams the answer into `response`.
 * With `upgrade`, a `101` answer joins the caller's socket and the stream; any other answer is
 * written as usual. Resolves when the exchange is over, whichever way it ended.
 */
export function forwardOverStream(
  connection: Duplex,
  incoming: IncomingMessage,
  response: ServerResponse,
  upstream: UpstreamRequest,
  onFailure: FailureHandler,
  upgrade?: UpgradeSide,
): Promise<void> {
  const socket: Duplex = upstream.https
    ? tlsConnect({
        socket: connection,
        rejectUnauthorized: false,
        ...(isIP(upstream.servername) === 0 && upstream.servername !== '' ? { servername: upstream.servername } : {}),
      })
    : connection;
  return new Promise<void>((resolve) => {
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      resolve();
    };
    const request = httpRequest({
      method: upstream.method,
      path: upstream.path,
      headers: upstream.headers,
      setHost: false,
      createConnection: () => socket as Socket,
    });
    let upgraded = false;
    request.on('error', (error) => {
      if (upgraded) return;
      if (!response.headersSent) onFailure(error);
      else response.destroy();
      finish();
    });
    request.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, upstream.answerHeaders(endToEndRawHeaders(answer.rawHeaders)));
      answer.pipe(response);
      answer.on('error', () => response.destroy());
      // An upgrade the app refused ends the caller's connection with the answer.
      if (upgrade) response.on('finish', () => upgrade.socket.destroy());
    });
    // The answer is complete, or the caller went away first: either way the app's side ends too.
    response.on('close', () => {
      if (upgraded) return;
      if (!response.writableFinished) request.destroy();
      socket.destroy();
      finish();
    });
    request.on('upgrade', (answer, appSocket: Duplex, appHead: Buffer) => {
      if (!upgrade) {
        appSocket.destroy();
        return;
      }
      upgraded = true;
      const lines = [`HTTP/1.1 ${answer.statusCode ?? 101} ${answer.statusMessage ?? 'Switching Protocols'}`];
      const headers = upstream.answerHeaders(answer.rawHeaders);
      for (let i = 0; i + 1 < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
      const caller = upgrade.socket;
      caller.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (appHead.length > 0) caller.write(appHead);
      if (upgrade.head.length > 0) appSocket.write(upgrade.head);
      const end = (): void => {
        caller.destroy();
        appSocket.destroy();
        finish();
      };
      appSocket.on('error', end);
      caller.on('error', end);
      appSocket.on('close', end);
      caller.on('close', end);
      appSocket.pipe(caller);
      caller.pipe(appSocket);
    });
    if (upgrade) request.end();
    else incoming.pipe(request);
  });
}
