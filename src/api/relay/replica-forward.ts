import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RawData } from 'ws';
import { RelayCloseCode } from '../../sdk/wire/index.js';
import { SESSION_HEADER } from '../session-token.js';
import { RelayStreamError, rawBuffer, type AgentStream } from './agent-relay.js';

/**
 * Marks a request one replica forwards to another. The receiving replica serves it from its own
 * agents or refuses it, never forwards it again, so two replicas cannot bounce a request.
 */
export const RELAYED_HEADER = 'x-cove-relayed';

/** How long the other replica has to accept the forwarded stream. */
const DIAL_TIMEOUT_MS = 15_000;

/**
 * Opens the same stream on the replica that holds the agent (`url` is that replica's address plus
 * the request's path and query), as the same user. Frames it sends before the pipe attaches are
 * kept, like the agent's own streams.
 */
export async function dialReplica(url: string, token: string | undefined): Promise<AgentStream> {
  const { WebSocket } = await import('ws');
  const target = new URL(url);
  target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
  const headers: Record<string, string> = { [RELAYED_HEADER]: '1' };
  if (token) headers[SESSION_HEADER] = token;
  const socket = new WebSocket(target, { headers, perMessageDeflate: false, handshakeTimeout: DIAL_TIMEOUT_MS });
  const early: Buffer[] = [];
  const collect = (data: RawData): void => {
    early.push(rawBuffer(data));
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.on('message', collect);
      resolve({
        id: randomUUID(),
        socket,
        takeEarly: () => {
          socket.off('message', collect);
          return early.splice(0);
        },
      });
    });
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () =>
        reject(
          new RelayStreamError(
            RelayCloseCode.agentGone,
            messageOf(body) ?? `the replica holding the agent refused the stream (HTTP ${response.statusCode})`,
          ),
        ),
      );
    });
    socket.once('error', (error) =>
      reject(new RelayStreamError(RelayCloseCode.agentGone, `the replica holding the agent cannot be reached: ${error.message}`)),
    );
  });
}

/** Answers an HTTP request with what the replica holding the agent answers to the same request. */
export async function forwardHttp(
  request: FastifyRequest,
  reply: FastifyReply,
  url: string,
  token: string | undefined,
): Promise<FastifyReply> {
  const headers: Record<string, string> = { [RELAYED_HEADER]: '1', accept: 'application/json' };
  if (token) headers[SESSION_HEADER] = token;
  let response: Response;
  try {
    response = await fetch(url, { method: request.method, headers, signal: AbortSignal.timeout(35_000) });
  } catch (error) {
    return reply
      .code(502)
      .send({ message: 'The replica holding the workspace agent cannot be reached.', detail: (error as Error).message });
  }
  const body = await response.text();
  return reply
    .code(response.status)
    .type(response.headers.get('content-type') ?? 'application/json')
    .send(body);
}

function messageOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : undefined;
  } catch {
    return undefined;
  }
}
