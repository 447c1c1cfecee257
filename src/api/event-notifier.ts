import type { FastifyBaseLogger } from 'fastify';
import type { EventNotifier } from '../domain/notifications/events/event-notifier.js';
import { SYSTEM_SUBJECTS } from '../rbac/index.js';
import type { ApiContext } from './context.js';

/**
 * What a route needs to tell people of what it did. Finding recipients runs as the notification
 * events subject, not as the caller: a template administrator deleting a template may not read
 * the other administrators it tells, a suspended user's own account is told too, and so on.
 */
export function eventNotifier(context: ApiContext, log: FastifyBaseLogger): EventNotifier {
  return {
    store: context.store.as(SYSTEM_SUBJECTS.notificationEvents),
    enqueuer: context.notifications,
    warn: (error, event) => log.warn({ err: error, event }, 'could not queue a notification'),
  };
}
