import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { HttpProblem } from '../../lib/errors.js';
import type { AgentWithOwners } from '../../store/rows.js';
import { AgentMetadataWatch } from '../agent-metadata-watch.js';
import type { ApiContext } from '../context.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { trackEventStream, trackWebSocket } from '../live-connections.js';
import { pathResource } from '../path-resources.js';
import { authOf } from '../plugins/authentication.js';
import { sseStart, sseWriteJson, SSE_PING_MS } from '../server-sent-events.js';

const AgentParam = Type.Object({ workspaceagent: Type.String({ format: 'uuid' }) });

/**
 * The agent metadata watch, as the reference serves it: `watch-metadata` is server-sent events,
 * `data` events carrying the JSON array of the agent's metadata items, first as they are, then on
 * every change, with `ping` events between; `watch-metadata-ws` sends the same events over a
 * WebSocket, one `{"type","data"}` message each. Reading the agent (its workspace) is required, so
 * a caller who cannot read it gets 404. Registered inside `workspaceAgentRoutes`, whose hooks
 * authenticate and load the agent.
 */
export function agentMetadataRoutes(app: FastifyInstance, context: ApiContext): void {
  const watch = new AgentMetadataWatch({ pubsub: context.store.pubsub, clock: context.store.clock });

  app.get('/workspaceagents/:workspaceagent/watch-metadata', { schema: { params: AgentParam } }, async (request, reply) => {
    const found = pathResource(request, 'workspaceAgent');
    // The stream outlives the handler: fastify must not answer on its own.
    reply.hijack();
    sseStart(reply);
    trackEventStream(context, request, reply, (auth) => auth.store.workspaceAgents.get(found.agent.id));
    serve(
      watch,
      request,
      found,
      (event, json) => sseWriteJson(reply, event, json),
      (stop) => request.raw.on('close', stop),
    );
  });

  httpOrWebSocketRoute(app, {
    url: '/workspaceagents/:workspaceagent/watch-metadata-ws',
    schema: { params: AgentParam },
    handler: async (request) => {
      pathResource(request, 'workspaceAgent');
      throw new HttpProblem(400, 'This endpoint is a WebSocket.', {
        detail: 'Use /watch-metadata for server-sent events over plain HTTP.',
      });
    },
    wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
      const found = pathResource(request, 'workspaceAgent');
      trackWebSocket(context, request, socket, (auth) => auth.store.workspaceAgents.get(found.agent.id));
      serve(
        watch,
        request,
        found,
        (event, json) => {
          // The message is {"type", "data"} with the list's JSON as it is, not parsed again.
          if (socket.readyState === socket.OPEN)
            socket.send(json === undefined ? `{"type":"${event}"}` : `{"type":"${event}","data":${json}}`);
        },
        (stop) => socket.on('close', stop),
      );
    },
  });
}

/** One watch stream: the list from the watch, `ping` every 15 s, until the caller leaves. */
function serve(
  watch: AgentMetadataWatch,
  request: FastifyRequest,
  found: AgentWithOwners,
  send: (event: 'data' | 'ping' | 'error', json?: string) => void,
  onClose: (stop: () => void) => void,
): void {
  const stop = watch.watch(found, authOf(request).store, send);
  const ping = setInterval(() => send('ping'), SSE_PING_MS);
  ping.unref();
  onClose(() => {
    clearInterval(ping);
    stop();
  });
}
