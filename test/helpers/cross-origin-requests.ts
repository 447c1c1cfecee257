import { request as httpRequest } from 'node:http';
import { WebSocket } from 'ws';

/**
 * Requests as a browser would send them from some page, headers and all, for the tests of the
 * origin boundary: node's fetch adds headers of its own, and the SDK always sends the token header.
 */

/** The session cookie as a browser holding `token` attaches it. */
export const sessionCookie = (token: string): Record<string, string> => ({ cookie: `service_session_token=${token}` });

/** One answer, with its body parsed when it is JSON. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly json: Record<string, unknown> | undefined;
}

/** A request with exactly the given headers (plus Host, unless given, and Content-Length for a body). */
export function sendRaw(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> | undefined;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** How a WebSocket attempt ended: opened (101, with what it said in its first moments) or refused with an answer. */
export interface SocketOutcome {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
}

/**
 * Opens a WebSocket to `path` with the given headers. Refused, resolves with the HTTP answer;
 * opened, resolves with 101 and closes it (`onOpen` first, to read from it).
 */
export function openSocket(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  onOpen?: (socket: WebSocket) => Promise<void>,
): Promise<SocketOutcome> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${path}`, { headers });
    socket.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        let body: Record<string, unknown> | undefined;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    socket.on('open', () => {
      (onOpen ? onOpen(socket) : Promise.resolve()).then(
        () => {
          socket.terminate();
          resolve({ status: 101, body: undefined });
        },
        (error: unknown) => {
          socket.terminate();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
    // After an answer, a reset of the refused socket changes nothing: the promise is settled.
    socket.on('error', reject);
  });
}

/** The first message a socket receives, as text. */
export function firstMessage(socket: WebSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.once('message', (data: Buffer) => resolve(data.toString('utf8')));
    socket.once('close', () => reject(new Error('closed before any message')));
  });
}
