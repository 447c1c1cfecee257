import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The two settings that bound how long a client may take to send a request. */
export interface HttpTimeoutValues {
  /** For the request line and headers (`--http-header-timeout`); 0 leaves only the body timeout. */
  readonly httpHeaderTimeoutMs: number;
  /** For the whole request, body included (`--http-body-timeout`); 0 turns it off. */
  readonly httpBodyTimeoutMs: number;
}

/** Node's HTTP server options that enforce them. */
export interface HttpServerTimeouts {
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly connectionsCheckingInterval: number;
}

/**
 * The Node HTTP server settings for the two timeouts, for a listener that answers every request
 * itself (the Prometheus listener). Node checks them only every `connectionsCheckingInterval`
 * (30 s by default, which let slow headers hold a connection for 86 s), so the check runs at a
 * tenth of the shorter timeout, between 50 ms and 1 s.
 */
export function httpServerTimeouts(values: HttpTimeoutValues): HttpServerTimeouts {
  const request = Math.max(0, values.httpBodyTimeoutMs);
  // Headers are part of the request: their timeout cannot outlast the whole request's (Node refuses that too).
  const header =
    request > 0 && (values.httpHeaderTimeoutMs <= 0 || values.httpHeaderTimeoutMs > request)
      ? request
      : Math.max(0, values.httpHeaderTimeoutMs);
  return { headersTimeout: header, requestTimeout: request, connectionsCheckingInterval: checkingInterval(header, request) };
}

/**
 * The API server's settings: Node times the headers; the body is timed per request
 * (startBodyTimeout), so that a request the app proxy hands on to a workspace app, such as an
 * upload into an editor, may take as long as the app lets it.
 *
 * Neither bounds an answer: once a request has arrived, streamed answers (server-sent events, log
 * follows) are never cut; and a WebSocket leaves the HTTP server's accounting when it upgrades,
 * so neither are sockets of agents, terminals or watchers. An API upload must arrive within the
 * body timeout: at the default 30 s, the largest file (100 MiB) needs about 3.5 MB/s; slower
 * links need a longer timeout.
 */
export function apiServerTimeouts(values: HttpTimeoutValues): HttpServerTimeouts {
  const header = Math.max(0, values.httpHeaderTimeoutMs);
  return { headersTimeout: header, requestTimeout: 0, connectionsCheckingInterval: checkingInterval(header, 0) };
}

function checkingInterval(...timeouts: number[]): number {
  const shortest = Math.min(...timeouts.filter((ms) => ms > 0), 10_000);
  return Math.min(1000, Math.max(50, Math.floor(shortest / 10)));
}

/** Where a request keeps its body timer, to be stopped when the app proxy takes the request over. */
const BODY_TIMER = Symbol('bodyTimer');

type TimedRequest = IncomingMessage & { [BODY_TIMER]?: NodeJS.Timeout };

/**
 * Gives a request that has a body `ms` from now for all of it to arrive; past that it is answered
 * 408 and its connection closed. Requests without a body (most of them) cost nothing here.
 */
export function startBodyTimeout(request: IncomingMessage, ms: number): void {
  if (ms <= 0 || request.complete) return;
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return;
  const timer = setTimeout(() => {
    if (!request.complete)
      answerClientError(
        Object.assign(new Error('the request body did not arrive in time'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
        request.socket,
      );
  }, ms);
  timer.unref();
  (request as TimedRequest)[BODY_TIMER] = timer;
  const stop = (): void => clearTimeout(timer);
  request.once('end', stop);
  request.once('close', stop);
}

/** Stops a request's body timer: what the request sends from now on is for a workspace app to time. */
export function stopBodyTimeout(request: IncomingMessage): void {
  clearTimeout((request as TimedRequest)[BODY_TIMER]);
}

/** The error shape's body for a request that broke off or never arrived whole. */
function clientErrorBody(code: string | undefined): { readonly status: number; readonly body: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      body: JSON.stringify({
        message: 'The request did not arrive in time.',
        detail:
          'Its headers, and then its body, must arrive within the limits this deployment sets (--http-header-timeout, --http-body-timeout).',
      }),
    };
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, body: JSON.stringify({ message: 'The request headers are too large.' }) };
  }
  return { status: 400, body: JSON.stringify({ message: 'The request is not valid HTTP.' }) };
}

/**
 * Answers a request the HTTP server gave up on (timed out, malformed) in the API's error shape,
 * then closes its connection. Nothing is written when the connection is gone or an answer to it
 * has begun already: a second status line would garble that answer.
 */
export function answerClientError(error: Error & { readonly code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Node's own check: the response it is writing on this socket, if any (not in its typings).
  const answering = (socket as Socket & { readonly _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && answering?.headersSent !== true) {
    const { status, body } = clientErrorBody(error.code);
    const reason = status === 408 ? 'Request Timeout' : status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
