import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { HttpProblem, NotFoundError } from '../lib/errors.js';
import { isUuid } from '../lib/random.js';
import type { ApiContext } from './context.js';
import { trackWebSocket } from './live-connections.js';
import { authOf } from './plugins/authentication.js';
import { SSE_PING_MS } from './server-sent-events.js';
import type { WorkspaceWatchHub } from './workspace-watch-hub.js';

/** Most workspaces one list stream follows: a few pages of the dashboard's list. */
export const MAX_WATCHED_WORKSPACES = 100;

const WatchListQuery = Type.Object({ ids: Type.String() });

/**
 * `GET /workspaces/watch-ws?ids=a,b,c`, a Cove extension: one WebSocket that follows every
 * workspace of a list page, so a page of rows needs one stream rather than one per row. Each id is
 * read through the caller's authorizing store before the upgrade (one the caller may not read is
 * the same 404 as one that does not exist), and again on every event by the shared watch hub.
 * Messages are those of `/workspaces/{id}/watch-ws`; an `error` also names its `workspace_id`.
 */
export function workspaceListWatchRoute<Memo>(app: FastifyInstance, context: ApiContext, hub: WorkspaceWatchHub<Memo>): void {
  const idsOf = async (request: FastifyRequest): Promise<string[]> => {
    const { ids: text } = request.query as { ids: string };
    const ids = [...new Set(text.split(',').map((id) => id.trim()))].filter((id) => id !== '');
    if (ids.length === 0) throw invalidIds('must name at least one workspace');
    if (ids.length > MAX_WATCHED_WORKSPACES) throw invalidIds(`must name at most ${MAX_WATCHED_WORKSPACES} workspaces`);
    const malformed = ids.find((id) => !isUuid(id));
    if (malformed !== undefined) throw invalidIds(`"${malformed}" is not a UUID`);
    const { found } = await authOf(request).store.workspaces.getWithLatestBuilds(ids);
    if (ids.some((id) => found.get(id)?.workspace.deleted !== 0)) throw new NotFoundError('workspace');
    return ids;
  };

  // Read before the upgrade, so a refusal is an HTTP answer rather than a socket that closes.
  const watched = new WeakMap<FastifyRequest, string[]>();
  app.route({
    method: 'GET',
    url: '/workspaces/watch-ws',
    schema: { querystring: WatchListQuery },
    preHandler: async (request) => {
      watched.set(request, await idsOf(request));
    },
    handler: async () => {
      throw new HttpProblem(400, 'This endpoint is a WebSocket.', {
        detail: 'Use /workspaces/{workspace}/watch for one workspace over plain HTTP.',
      });
    },
    wsHandler: (socket: WebSocket, request: FastifyRequest) => {
      const ids = watched.get(request) ?? [];
      // The stream stays while any of its workspaces is still readable; each lost one is told as an error.
      trackWebSocket(context, request, socket, async (auth) => (await auth.store.workspaces.getWithLatestBuilds(ids)).found.size > 0);
      const send = (text: string) => {
        if (socket.readyState === socket.OPEN) socket.send(text);
      };
      const stops = ids.map((id) =>
        hub.watch(id, authOf(request).store, (event, json) =>
          send(event === 'data' ? `{"type":"data","data":${json}}` : `{"type":"error","workspace_id":"${id}","data":${json}}`),
        ),
      );
      const ping = setInterval(() => send('{"type":"ping"}'), SSE_PING_MS);
      ping.unref();
      socket.on('close', () => {
        clearInterval(ping);
        for (const stop of stops) stop();
      });
    },
  });
}

function invalidIds(detail: string): HttpProblem {
  return new HttpProblem(400, 'Invalid workspace ids.', { validations: [{ field: 'ids', detail }] });
}
