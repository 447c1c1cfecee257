import type { NotificationKindName } from './catalogue.js';

/**
 * One event to tell a user about: which kind, whom, and the labels its text refers to. The
 * notifier turns it into one queued message per method the kind goes out by (unless the user
 * turned the kind off), and queues the same event only once (see `dedupeKey`).
 */
export interface NotificationRequest {
  readonly kind: NotificationKindName;
  readonly userId: string;
  /** The values `{{name}}` of the kind's text refers to. */
  readonly labels: Readonly<Record<string, string>>;
  /** Ids the message is about (workspace, template, user), for the inbox's filters. */
  readonly targets: readonly string[];
  /** Who queued it: the job or event (`autobuild`, `lifecycle`, `api`, ...). */
  readonly createdBy: string;
  /**
   * Events with the same key are one message, whichever replica or retry queues them. Default:
   * the kind, the user, the labels and the day.
   */
  readonly dedupeKey?: string;
}

/** Queues notifications; implemented by the notifier (src/domain/notifications/). */
export interface NotificationEnqueuer {
  /** Queues the event's messages; resolves once they are stored (they are sent later, once each). */
  enqueue(request: NotificationRequest): Promise<void>;
}
