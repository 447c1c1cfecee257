import { clientTlsOptions } from './client-tls.js';
import { DeploymentTimeoutError, headerValue, sendHttpRequest } from './http-transport.js';
import { ApiError } from './api-error.js';
import type { Response } from './wire/index.js';

/** The header that carries the session token. */
export const SESSION_TOKEN_HEADER = 'Service-Session-Token';

/** How to reach a daemon. */
export interface ClientOptions {
  /** Base URL of the deployment, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly token?: string | undefined;
  /** Called with the version the daemon reports on each JSON answer (the CLI warns on a mismatch). */
  readonly onServerVersion?: (version: string) => void;
  /**
   * Milliseconds a plain call may take, connecting and answering, before it fails with a
   * DeploymentTimeoutError; undefined or 0 for none. Streams (log follows, watches) are not
   * limited, since they stay open by design; their WebSockets get it only to open.
   */
  readonly timeoutMs?: number | undefined;
  /**
   * Headers sent on every request, streams and WebSockets included (`cove --header`): a proxy in
   * front of the deployment may require its own.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** Query parameters of a call; undefined ones are left out of the URL. */
export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

interface RequestOptions {
  readonly body?: unknown;
  readonly query?: Query;
}

/**
 * What every call of `/api/v2` goes through: the deployment's URL, the session token, and the
 * requests themselves with their error parsing. The calls per resource (src/sdk/calls/) build on it,
 * and CoveClient puts them together.
 */
export class ClientCore {
  readonly url: string;
  #token: string | undefined;
  readonly #onServerVersion: ((version: string) => void) | undefined;
  /** See ClientOptions.timeoutMs. */
  readonly timeoutMs: number | undefined;
  /** See ClientOptions.headers. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.#token = options.token;
    this.#onServerVersion = options.onServerVersion;
    this.timeoutMs = options.timeoutMs;
    this.headers = options.headers ?? {};
  }

  get token(): string | undefined {
    return this.#token;
  }

  /** The headers every request carries: the extra ones, then the session token. */
  baseHeaders(): Record<string, string> {
    const headers: Record<string, string> = { ...this.headers };
    if (this.#token) headers[SESSION_TOKEN_HEADER] = this.#token;
    return headers;
  }

  /** Sends one request and parses the JSON answer; throws ApiError on any non-2xx status. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${this.url}/api/v2${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { ...this.baseHeaders(), accept: 'application/json' };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await sendHttpRequest(url, { method, headers, body, timeoutMs: this.timeoutMs });
    this.#onServerVersion?.(headerValue(response.headers, 'x-cove-build-version') ?? '');
    const text = response.body.toString('utf8');
    // 304 Not Modified: the request changed nothing, which is not a failure.
    if (response.status === 304) return undefined as T;
    if (response.status < 200 || response.status > 299)
      throw new ApiError(response.status, method, url.toString(), parseErrorBody(text, response.status));
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /**
   * Sends a request whose body or answer is not JSON (archives). Returns the raw answer; throws
   * ApiError on any non-2xx status like `request`.
   */
  async requestBytes(
    method: string,
    path: string,
    options: { readonly body?: Uint8Array; readonly contentType?: string; readonly query?: Query } = {},
  ): Promise<{ readonly status: number; readonly contentType: string; readonly body: Buffer }> {
    const url = new URL(`${this.url}/api/v2${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers = this.baseHeaders();
    if (options.contentType) headers['content-type'] = options.contentType;
    const response = await sendHttpRequest(url, { method, headers, body: options.body, timeoutMs: this.timeoutMs });
    if (response.status < 200 || response.status > 299)
      throw new ApiError(response.status, method, url.toString(), parseErrorBody(response.body.toString('utf8'), response.status));
    return { status: response.status, contentType: headerValue(response.headers, 'content-type') ?? '', body: response.body };
  }

  /**
   * Opens a WebSocket on `path` with this client's token and resolves once it is open, paused so
   * the caller attaches its listeners first; a refusal is an ApiError with the daemon's answer.
   */
  async openSocket(path: string, query: Query = {}): Promise<import('ws').WebSocket> {
    const { WebSocket } = await import('ws');
    const url = new URL(`${this.url}/api/v2${path}`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers = this.baseHeaders();
    const socket = new WebSocket(url, {
      headers,
      perMessageDeflate: false,
      ...clientTlsOptions(),
      ...(this.timeoutMs ? { handshakeTimeout: this.timeoutMs } : {}),
    });
    return new Promise((resolve, reject) => {
      socket.once('open', () => {
        socket.pause();
        resolve(socket);
      });
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () =>
          reject(new ApiError(response.statusCode ?? 0, 'GET', url.toString(), parseErrorBody(body, response.statusCode ?? 0))),
        );
      });
      socket.once('error', (error) => {
        // The opening handshake ran out of time: the same failure as a plain call's.
        reject(this.timeoutMs && /handshake has timed out/.test(error.message) ? new DeploymentTimeoutError(url, this.timeoutMs) : error);
      });
    });
  }
}

/** The error body of a failed answer: the spec's JSON when the daemon sent it, else its text. */
export function parseErrorBody(text: string, status: number): Response {
  try {
    const parsed = JSON.parse(text) as Partial<Response>;
    if (typeof parsed.message === 'string') return parsed as Response;
  } catch {
    // Not JSON: a proxy or a plain-text answer. Keep the text as the message.
  }
  return { message: text.trim() || `HTTP ${status}` };
}
