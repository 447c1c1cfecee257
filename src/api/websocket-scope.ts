import websocket from '@fastify/websocket';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ApiContext } from './context.js';

/** Largest WebSocket message the daemon takes (a relay frame, an agent's log batch). */
const MAX_PAYLOAD = 64 * 1024 * 1024;

/**
 * Registers the route groups that serve WebSockets in a scope of their own, with the WebSocket
 * plugin. The plugin's hooks (one on every request, one on every answer, which makes fastify
 * watch for the end of each response) then run on these routes only, not on every plain route.
 * Its upgrade listener is the server's: every upgrade (the app proxy's included) is routed
 * through it, and a plain route that answers one has its socket closed by the app.
 */
export async function registerWebSocketScope(
  app: FastifyInstance,
  groups: readonly ((app: FastifyInstance, context: ApiContext) => Promise<void>)[],
  context: ApiContext,
): Promise<void> {
  await app.register(async (sockets) => {
    await sockets.register(websocket, { options: { maxPayload: MAX_PAYLOAD }, preClose: goingAway });
    for (const group of groups) await sockets.register(group, context);
  });
}

/**
 * For an `onRoute` hook: refuses, at start, a WebSocket route registered outside that scope,
 * where it would get no socket and fail only when someone connects.
 */
export function refuseWebSocketOutsideScope(instance: FastifyInstance, route: RouteOptions): void {
  if ((route.websocket === true || route.wsHandler !== undefined) && !instance.hasDecorator('websocketServer')) {
    throw new Error(`${route.url} serves WebSockets: register its route group through registerWebSocketScope`);
  }
}

/**
 * When the app closes: every WebSocket is told the server is going away (1001), so agents,
 * provisioner daemons and browsers reconnect, to another replica or to this one once it is back.
 * Sockets whose peer does not answer the close are cut with the other connections (ConnectionDrain).
 */
function goingAway(this: FastifyInstance, done: () => void): void {
  for (const client of this.websocketServer.clients) client.close(1001, 'the server is shutting down');
  done();
}
