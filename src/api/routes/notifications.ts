import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { notificationKindById } from '../../domain/notifications/catalogue.js';
import { NOTIFICATION_DELIVERY_METHODS } from '../../domain/options/notifications.js';
import { forbiddenProblem, HttpProblem, NotFoundError } from '../../lib/errors.js';
import { newId, isUuid } from '../../lib/random.js';
import { siteObject } from '../../rbac/index.js';
import {
  NOTIFICATION_MESSAGE_STATUSES,
  NotificationMessage,
  NotificationMethodsResponse,
  NotificationPreference,
  NotificationsSettings,
  NotificationTemplate,
  UpdateNotificationTemplateMethod,
  UpdateUserNotificationPreferences,
} from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireNotificationMessage, toWireNotificationTemplates } from '../convert/notifications.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { UserParam } from './users.js';

const TemplateParam = Type.Object({ notification_template: Type.String() });
const MessagesQuery = Type.Object({
  status: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});
/** The methods an operator may choose for a kind: the deployment's, or the inbox alone. */
const TEMPLATE_METHODS: readonly string[] = ['', ...NOTIFICATION_DELIVERY_METHODS, 'inbox'];

/**
 * The deployment's notification kinds and methods, whether sending is paused, the test
 * notification, users' preferences, and the queue's recent messages.
 */
export async function notificationRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/notifications/templates/system', { schema: { response: { 200: Type.Array(NotificationTemplate) } } }, async (request) =>
    toWireNotificationTemplates(await authOf(request).store.notifications.templateMethods()),
  );

  // As the reference: the inbox is not among the methods an operator picks for the deployment.
  api.get('/notifications/dispatch-methods', { schema: { response: { 200: NotificationMethodsResponse } } }, async () => ({
    available: [...NOTIFICATION_DELIVERY_METHODS],
    default: context.values.notificationsMethod,
  }));

  api.put(
    '/notifications/templates/:notification_template/method',
    { schema: { params: TemplateParam, body: UpdateNotificationTemplateMethod } },
    async (request, reply) => {
      const method = request.body.method ?? '';
      if (!TEMPLATE_METHODS.includes(method)) {
        throw new HttpProblem(400, 'Invalid request to update notification template method', {
          validations: [
            {
              field: 'method',
              detail: `"${method}" is not a valid method; one of ${TEMPLATE_METHODS.filter(Boolean).join(', ')}, or empty for the default`,
            },
          ],
        });
      }
      const kind = notificationKindById(request.params.notification_template);
      if (!kind) throw new NotFoundError('notification template');
      const { store } = authOf(request);
      const notifications = store.notifications;
      // Refused before "unchanged": a member learns nothing by trying.
      if (!store.can('update', siteObject('notification_template'))) throw forbiddenProblem();
      if (((await notifications.templateMethods()).get(kind.id) ?? '') === method) {
        return reply.code(304).send();
      }
      await notifications.setTemplateMethod(kind.id, method, kind.name);
      return { message: 'Successfully updated notification template method.' };
    },
  );

  api.get('/notifications/settings', { schema: { response: { 200: NotificationsSettings } } }, async (request) => ({
    notifier_paused: await authOf(request).store.notifications.paused(),
  }));

  api.put('/notifications/settings', { schema: { body: NotificationsSettings } }, async (request, reply) => {
    const notifications = authOf(request).store.notifications;
    const paused = request.body.notifier_paused;
    if ((await notifications.paused()) === paused) {
      // Refused before "unchanged": a member learns nothing by trying.
      if (!authOf(request).store.can('update', siteObject('deployment_config'))) throw forbiddenProblem();
      return reply.code(304).send();
    }
    await notifications.setPaused(paused);
    return { notifier_paused: paused };
  });

  api.post('/notifications/test', async (request, reply) => {
    const { store, user } = authOf(request);
    // As the reference: sending a test is an operator's act on the deployment's configuration.
    if (!store.can('update', siteObject('deployment_config'))) throw forbiddenProblem();
    await context.notifications.enqueue({
      kind: 'testNotification',
      userId: user.id,
      labels: {},
      targets: [],
      createdBy: 'send-test-notification',
      // Every test is sent, however many are asked for in a day.
      dedupeKey: newId(),
    });
    return reply.code(204).send();
  });

  api.get(
    '/users/:user/notifications/preferences',
    { schema: { params: UserParam, response: { 200: Type.Array(NotificationPreference) } } },
    async (request) => toWirePreferences(await authOf(request).store.notifications.preferences(pathResource(request, 'user').id)),
  );

  api.put(
    '/users/:user/notifications/preferences',
    { schema: { params: UserParam, body: UpdateUserNotificationPreferences, response: { 200: Type.Array(NotificationPreference) } } },
    async (request) => {
      const choices = new Map<string, boolean>();
      for (const [id, disabled] of Object.entries(request.body.template_disabled_map)) {
        if (!isUuid(id) || !notificationKindById(id)) {
          throw new HttpProblem(400, 'Unable to parse notification template UUID.', {
            detail: `"${id}" is not the id of a notification template`,
            validations: [{ field: 'template_disabled_map', detail: `unknown notification template "${id}"` }],
          });
        }
        choices.set(id, disabled);
      }
      const notifications = authOf(request).store.notifications;
      const userId = pathResource(request, 'user').id;
      await notifications.setPreferences(userId, choices);
      return toWirePreferences(await notifications.preferences(userId));
    },
  );

  api.get(
    '/notifications/messages',
    { schema: { querystring: MessagesQuery, response: { 200: Type.Array(NotificationMessage) } } },
    async (request) => {
      const { status, limit } = request.query;
      if (status && !(NOTIFICATION_MESSAGE_STATUSES as readonly string[]).includes(status)) {
        throw new HttpProblem(400, 'Invalid query parameters.', {
          validations: [{ field: 'status', detail: `must be one of ${NOTIFICATION_MESSAGE_STATUSES.join(', ')}` }],
        });
      }
      const rows = await authOf(request).store.notifications.listMessages({ ...(status ? { status } : {}), limit: limit ?? 50 });
      return rows.map(toWireNotificationMessage);
    },
  );
}

function toWirePreferences(
  rows: readonly { readonly template_id: string; readonly disabled: number; readonly updated_at: string }[],
): NotificationPreference[] {
  return rows.map((row) => ({ id: row.template_id, disabled: row.disabled === 1, updated_at: row.updated_at }));
}
