import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { WebSocket } from 'ws';

/** A GET route that answers plain requests with `handler` and WebSocket upgrades with `wsHandler`. */
export interface HttpOrWebSocketRoute {
  readonly url: string;
  readonly schema: FastifySchema;
  readonly handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  readonly wsHandler: (socket: WebSocket, request: FastifyRequest) => Promise<void>;
}

/**
 * Registers a route with both handlers. The websocket plugin supports this at run time; its types
 * only describe one handler or the other, hence the single cast here rather than at every route.
 */
export function httpOrWebSocketRoute(app: FastifyInstance, route: HttpOrWebSocketRoute): void {
  const register = app.route.bind(app) as unknown as (options: Record<string, unknown>) => void;
  register({ method: 'GET', ...route });
}
