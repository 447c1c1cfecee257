import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { inboxChannel } from '../../domain/notifications/inbox-channel.js';
import { HttpProblem, isNotFoundOrHidden } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import type { AuthorizedStore, InboxNotificationRow } from '../../store/authorized-store.js';
import {
  GetInboxNotificationResponse,
  ListInboxNotificationsResponse,
  UpdateInboxNotificationReadStatusRequest,
  UpdateInboxNotificationReadStatusResponse,
} from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireInboxNotification } from '../convert/notifications.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { trackWebSocket } from '../live-connections.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

/** How many notifications one page of the inbox holds, as the reference. */
const INBOX_PAGE = 25;
const ReadStatus = Type.Optional(Type.String());
const InboxQuery = Type.Object({
  targets: Type.Optional(Type.String()),
  templates: Type.Optional(Type.String()),
  read_status: ReadStatus,
  starting_before: Type.Optional(Type.String()),
});
const WatchQuery = Type.Object({ targets: Type.Optional(Type.String()), templates: Type.Optional(Type.String()), read_status: ReadStatus });
const IdParam = Type.Object({ id: Type.String() });

/** What a list or a watch keeps of the caller's inbox. */
interface InboxSelection {
  readonly targets: readonly string[];
  readonly templates: readonly string[];
  readonly readStatus: 'read' | 'unread' | 'all';
}

/** `/notifications/inbox`: the caller's in-app notifications, marking them read, and a live watch. */
export async function inboxNotificationRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/notifications/inbox',
    { schema: { querystring: InboxQuery, response: { 200: ListInboxNotificationsResponse } } },
    async (request) => {
      const { store, user } = authOf(request);
      const selection = inboxSelection(request.query);
      const before = request.query.starting_before;
      let startingBefore: InboxNotificationRow | undefined;
      if (before) {
        if (!isUuid(before)) throw invalidQuery('starting_before', 'must be the id of a notification');
        startingBefore = await store.notifications.getInbox(before).catch((error: unknown) => {
          if (isNotFoundOrHidden(error)) throw invalidQuery('starting_before', 'no such notification of yours');
          throw error;
        });
      }
      const rows = await store.notifications.listInbox({ userId: user.id, ...selection, startingBefore, limit: INBOX_PAGE });
      return { notifications: rows.map(toWireInboxNotification), unread_count: await store.notifications.unreadCount(user.id) };
    },
  );

  api.put(
    '/notifications/inbox/:id/read-status',
    {
      schema: {
        params: IdParam,
        body: UpdateInboxNotificationReadStatusRequest,
        response: { 200: UpdateInboxNotificationReadStatusResponse },
      },
    },
    async (request) => {
      const { store, user } = authOf(request);
      if (!isUuid(request.params.id))
        throw new HttpProblem(400, 'Invalid notification id.', { validations: [{ field: 'id', detail: 'must be a UUID' }] });
      const row = await store.notifications.getInbox(request.params.id);
      const updated = await store.notifications.setInboxRead(row, request.body.is_read);
      return { notification: toWireInboxNotification(updated), unread_count: await store.notifications.unreadCount(user.id) };
    },
  );

  api.put('/notifications/inbox/mark-all-as-read', async (request, reply) => {
    const { store, user } = authOf(request);
    await store.notifications.markAllInboxRead(user.id);
    return reply.code(204).send();
  });

  httpOrWebSocketRoute(app, {
    url: '/notifications/inbox/watch',
    schema: { querystring: WatchQuery },
    handler: async (request) => {
      inboxSelection(request.query);
      throw new HttpProblem(400, 'This endpoint is a WebSocket.', { detail: 'Connect with a WebSocket to follow new notifications.' });
    },
    wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
      const { store, user } = authOf(request);
      let selection: InboxSelection;
      try {
        selection = inboxSelection(request.query as Record<string, string | undefined>);
      } catch (error) {
        socket.close(4400, (error as Error).message.slice(0, 120));
        return;
      }
      trackWebSocket(context, request, socket, (auth) => auth.store.notifications.unreadCount(user.id));
      await watchInbox(context, socket, store, user.id, selection);
    },
  });
}

/**
 * Sends each new notification of the user that the selection keeps, with the unread count, until
 * the socket closes. New notifications are announced on the pubsub by whichever replica delivered
 * them, and read here as the caller.
 */
async function watchInbox(
  context: ApiContext,
  socket: WebSocket,
  store: AuthorizedStore,
  userId: string,
  selection: InboxSelection,
): Promise<void> {
  // One at a time, in the order announced: each message's unread count includes those before it.
  let sending = Promise.resolve();
  const stop = await context.store.pubsub.subscribe(inboxChannel(userId), (id) => {
    sending = sending
      .then(async () => {
        if (socket.readyState !== socket.OPEN) return;
        const row = await store.notifications.getInbox(id);
        if (!kept(row, selection)) return;
        const message: GetInboxNotificationResponse = {
          notification: toWireInboxNotification(row),
          unread_count: await store.notifications.unreadCount(userId),
        };
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      })
      .catch(() => undefined);
  });
  if (socket.readyState !== socket.OPEN) {
    await stop();
    return;
  }
  socket.once('close', () => void stop());
}

/** Whether a new notification belongs to what the watcher asked for. */
function kept(row: InboxNotificationRow, selection: InboxSelection): boolean {
  if (selection.readStatus === 'read' && row.read_at === null) return false;
  if (selection.readStatus === 'unread' && row.read_at !== null) return false;
  if (selection.templates.length > 0 && !selection.templates.includes(row.template_id)) return false;
  const targets = JSON.parse(row.targets) as string[];
  return selection.targets.every((target) => targets.includes(target));
}

/** The query's filters, checked: comma-separated UUIDs, and a known read status. */
function inboxSelection(query: { readonly targets?: string; readonly templates?: string; readonly read_status?: string }): InboxSelection {
  const readStatus = query.read_status ?? 'all';
  if (readStatus !== 'read' && readStatus !== 'unread' && readStatus !== 'all')
    throw invalidQuery('read_status', 'must be read, unread or all');
  return { targets: uuidList(query.targets, 'targets'), templates: uuidList(query.templates, 'templates'), readStatus };
}

function uuidList(text: string | undefined, field: string): string[] {
  const ids = (text ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  for (const id of ids) if (!isUuid(id)) throw invalidQuery(field, `"${id}" is not a UUID`);
  return ids;
}

function invalidQuery(field: string, detail: string): HttpProblem {
  return new HttpProblem(400, 'Invalid query parameters.', { validations: [{ field, detail }] });
}
