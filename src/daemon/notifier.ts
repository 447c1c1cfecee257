import type { Logger } from 'pino';
import type { DeploymentValues } from '../domain/deployment-options.js';
import type { Mailer } from '../domain/mailer.js';
import { emailSender } from '../domain/notifications/email-sender.js';
import { inboxSender } from '../domain/notifications/inbox-sender.js';
import { NotificationDispatcher } from '../domain/notifications/notification-dispatcher.js';
import { NotificationQueue } from '../domain/notifications/notification-queue.js';
import { webhookSender } from '../domain/notifications/webhook-sender.js';
import { SYSTEM_SUBJECTS } from '../rbac/index.js';
import type { Store } from '../store/store.js';
import { PeriodicTask } from './periodic-task.js';

/** The daemon's notifier: the queue events go into, and the task that sends what it holds. */
export interface Notifier {
  readonly queue: NotificationQueue;
  /** Runs every `--notifications-fetch-interval`, and soon after something is queued. */
  readonly task: PeriodicTask;
}

/**
 * Makes the notifier. Queueing and sending act as the notifier's own subject: the recipient of a
 * message is rarely whoever caused the event, and nobody asks for the sending.
 */
export function createNotifier(store: Store, values: DeploymentValues, mailer: Mailer, logger: Logger): Notifier {
  const notifier = store.as(SYSTEM_SUBJECTS.notifier);
  const now = (): Date => store.clock.now();
  const dispatcher = new NotificationDispatcher({
    store: notifier,
    senders: {
      inbox: inboxSender(notifier, store.pubsub),
      ...(mailer.configured ? { smtp: emailSender(mailer) } : {}),
      webhook: webhookSender({ endpoint: () => values.notificationsWebhookEndpoint, secret: values.notificationsWebhookSecret, now }),
    },
    settings: {
      leaseCount: values.notificationsLeaseCount,
      leasePeriodMs: values.notificationsLeasePeriodMs,
      dispatchTimeoutMs: values.notificationsDispatchTimeoutMs,
      maxSendAttempts: values.notificationsMaxSendAttempts,
      retryIntervalMs: values.notificationsRetryIntervalMs,
    },
    now,
    logger,
  });
  // Set when messages are queued during a run, which may have leased before they were there.
  let queuedMeanwhile = false;
  const task = new PeriodicTask(
    'notifications',
    values.notificationsFetchIntervalMs,
    async () => {
      do {
        queuedMeanwhile = false;
        const { sent, failed } = await dispatcher.run();
        if (sent + failed > 0) logger.debug({ sent, failed }, 'sent notifications');
      } while (queuedMeanwhile);
    },
    logger,
  );
  const queue = new NotificationQueue({
    store: notifier,
    values,
    smtpConfigured: mailer.configured,
    now,
    // Sent at once rather than at the next fetch: an inbox watcher sees its notification live.
    onQueued: () => {
      queuedMeanwhile = true;
      void task.runNow();
    },
  });
  return { queue, task };
}
