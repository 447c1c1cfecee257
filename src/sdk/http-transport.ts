// The SDK's requests go through node:http rather than the built-in fetch: fetch's first call loads
// and compiles its whole implementation (hundreds of milliseconds), which a one-request CLI command
// would pay every time. node:http loads in a few milliseconds.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { clientTlsOptions } from './client-tls.js';

// Loaded on the first request, with require: the single executable's main script cannot import().
const require = createRequire(import.meta.url);

/** The deployment could not be reached at all: no answer, as opposed to an error answer. */
export class DeploymentUnreachableError extends Error {
  /** The system's error code (`ECONNREFUSED`, `ENOTFOUND`, …), when there is one. */
  readonly code: string | undefined;

  constructor(url: URL, cause: unknown) {
    const code = (cause as { code?: unknown } | undefined)?.code;
    super(`could not reach ${url.origin}${typeof code === 'string' ? ` (${code})` : ''}`, { cause });
    this.name = 'DeploymentUnreachableError';
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/**
 * The deployment took the connection but gave no whole answer in time: a server that hangs, or a
 * proxy that holds the request. A kind of unreachable, so callers that treat "no answer" specially
 * (the health report's exit status) treat this one the same.
 */
export class DeploymentTimeoutError extends DeploymentUnreachableError {
  /** The time the request was given, in milliseconds. */
  readonly timeoutMs: number;

  constructor(url: URL, timeoutMs: number) {
    super(url, Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    this.name = 'DeploymentTimeoutError';
    this.message = `${url.origin} did not answer within ${timeoutMs} ms`;
    this.timeoutMs = timeoutMs;
  }
}

/** One request. */
export interface HttpRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * Milliseconds the whole exchange may take, from connecting to the answer's last byte; undefined
   * or 0 for none (streams, which stay open as long as they have something to say).
   */
  readonly timeoutMs?: number | undefined;
}

/** An answer read whole. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * Sends a request and resolves with the answer's head once it arrives; its body is the returned
 * stream. Connections are kept alive (Node's default agents) for the next request of a command.
 * With `timeoutMs`, the request and its answer's body end with a DeploymentTimeoutError once that
 * time has passed.
 */
export async function openHttpRequest(url: URL, init: HttpRequest): Promise<IncomingMessage> {
  const { request } =
    url.protocol === 'https:'
      ? (require('node:https') as typeof import('node:https'))
      : (require('node:http') as typeof import('node:http'));
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  return new Promise((resolve, reject) => {
    let answer: IncomingMessage | undefined;
    const tls = url.protocol === 'https:' ? clientTlsOptions() : {};
    const outgoing = request(url, { method: init.method, headers, ...tls, ...(init.signal ? { signal: init.signal } : {}) }, (response) => {
      answer = response;
      response.once('close', () => clearTimeout(timer));
      resolve(response);
    });
    const timeoutMs = init.timeoutMs ?? 0;
    // One deadline for the whole exchange: a server that accepts and never answers, or stops halfway
    // through its answer, ends the request instead of holding the command forever.
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            const error = new DeploymentTimeoutError(url, timeoutMs);
            if (answer) answer.destroy(error);
            else outgoing.destroy(error);
          }, timeoutMs)
        : undefined;
    // The timer alone must not keep a finished command's process alive.
    timer?.unref();
    outgoing.once('error', (error) => {
      clearTimeout(timer);
      reject(init.signal?.aborted || error instanceof DeploymentTimeoutError ? error : new DeploymentUnreachableError(url, error));
    });
    outgoing.end(init.body);
  });
}

/** Sends a request and reads its whole answer (within `timeoutMs`, when given). */
export async function sendHttpRequest(url: URL, init: HttpRequest): Promise<HttpAnswer> {
  const response = await openHttpRequest(url, init);
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) };
}

/** The first value of a header. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
