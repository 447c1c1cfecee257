import type { FastifyReply } from 'fastify';

/** How often a server-sent event stream says it is still there (the reference's ping period). */
export const SSE_PING_MS = 15_000;

/** Starts a server-sent event stream on a hijacked reply; headers go out at once so clients see the stream open. */
export function sseStart(reply: FastifyReply): void {
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': String(reply.request.id),
  });
  reply.raw.flushHeaders();
  // The stream has no end of its own: it ends when the daemon stops.
  reply.server.connectionDrain.stream(reply.raw);
}

/** One event: `event: <type>` and its JSON `data` (empty when there is none). */
export function sseWrite(reply: FastifyReply, event: string, data: unknown): void {
  sseWriteJson(reply, event, data === undefined ? undefined : JSON.stringify(data));
}

/** As sseWrite, with the data already JSON (one line: JSON.stringify never breaks lines). */
export function sseWriteJson(reply: FastifyReply, event: string, json: string | undefined): void {
  reply.raw.write(`event: ${event}\ndata: ${json ?? ''}\n\n`);
}
