// The SDK's requests go through node:http rather than the built-in fetch: fetch's first call loads
// and compiles its whole implementation (hundreds of milliseconds), which a one-request CLI command
// would pay every time. node:http loads in a few milliseconds.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';

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

/** One request. */
export interface HttpRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | undefined;
  readonly signal?: AbortSignal | undefined;
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
 */
export async function openHttpRequest(url: URL, init: HttpRequest): Promise<IncomingMessage> {
  const { request } =
    url.protocol === 'https:'
      ? (require('node:https') as typeof import('node:https'))
      : (require('node:http') as typeof import('node:http'));
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: init.method, headers, ...(init.signal ? { signal: init.signal } : {}) }, resolve);
    outgoing.once('error', (error) => reject(init.signal?.aborted ? error : new DeploymentUnreachableError(url, error)));
    outgoing.end(init.body);
  });
}

/** Sends a request and reads its whole answer. */
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
