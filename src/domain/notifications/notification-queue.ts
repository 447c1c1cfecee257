import { createHash } from 'node:crypto';
import { isNotFoundOrHidden } from '../../lib/errors.js';
import { newId } from '../../lib/random.js';
import type { AuthorizedStore, NotificationMessageRow } from '../../store/authorized-store.js';
import type { DeploymentValues } from '../deployment-options.js';
import { NOTIFICATION_KINDS, type NotificationKind } from './catalogue.js';
import type { NotificationEnqueuer, NotificationRequest } from './notification-request.js';
import type { NotificationPayload } from './payload.js';
import { renderNotification } from './render.js';

/** What the queue needs of the daemon. */
export interface NotificationQueueOptions {
  /** The store as the notifier: events queue messages for users who are not the actor. */
  readonly store: AuthorizedStore;
  /** The daemon's settings, read at each enqueue: the access URL is known only once it listens. */
  readonly values: DeploymentValues;
  /** Whether an SMTP server is configured (the mailer's `configured`). */
  readonly smtpConfigured: boolean;
  readonly now: () => Date;
  /** Told after messages were queued, so that they go out without waiting for the next fetch. */
  readonly onQueued?: () => void;
}

/**
 * Turns events into queued messages: one per method the kind goes out by for the recipient, with
 * the text rendered now. The inbox when it is enabled, plus the kind's method (the operator's
 * choice for the kind, else the deployment's), when that method is configured; nothing when the
 * recipient turned the kind off. The same event queued twice (another replica, a retried job) is
 * one message, by the unique dedupe hash.
 */
export class NotificationQueue implements NotificationEnqueuer {
  readonly #options: NotificationQueueOptions;

  constructor(options: NotificationQueueOptions) {
    this.#options = options;
  }

  /** The methods besides the inbox that are configured, the deployment's own first. */
  configuredMethods(): string[] {
    const { values } = this.#options;
    const methods = [values.notificationsMethod, ...['smtp', 'webhook'].filter((m) => m !== values.notificationsMethod)];
    return methods.filter((method) => this.#configured(method));
  }

  async enqueue(request: NotificationRequest): Promise<void> {
    // The test notification shows whether each method reaches the caller: every one, whatever they chose.
    if (request.kind === 'testNotification') {
      await this.enqueueByEveryMethod(request);
      return;
    }
    const kind: NotificationKind = NOTIFICATION_KINDS[request.kind];
    const { store } = this.#options;
    const preferences = await store.notifications.preferences(request.userId);
    const choice = preferences.find((row) => row.template_id === kind.id);
    if (choice ? choice.disabled === 1 : !kind.enabledByDefault) return;
    const override = (await store.notifications.templateMethods()).get(kind.id);
    const method = override || this.#options.values.notificationsMethod;
    const methods = [...(this.#options.values.notificationsInboxEnabled ? ['inbox'] : []), ...(this.#configured(method) ? [method] : [])];
    await this.#queue(request, kind, methods);
  }

  /**
   * Queues the event by every configured method and the inbox, whatever the recipient's
   * preferences. Returns how many messages were queued.
   */
  async enqueueByEveryMethod(request: NotificationRequest): Promise<number> {
    const kind: NotificationKind = NOTIFICATION_KINDS[request.kind];
    const methods = [...(this.#options.values.notificationsInboxEnabled ? ['inbox'] : []), ...this.configuredMethods()];
    return this.#queue(request, kind, methods);
  }

  async #queue(request: NotificationRequest, kind: NotificationKind, methods: readonly string[]): Promise<number> {
    if (methods.length === 0) return 0;
    const { store, values } = this.#options;
    const recipient = await store.notifications.recipient(request.userId).catch((error: unknown) => {
      // A user deleted since the event has nobody left to tell.
      if (isNotFoundOrHidden(error)) return undefined;
      throw error;
    });
    if (!recipient) return 0;
    const rendered = renderNotification(kind, request.labels, {
      accessUrl: values.accessUrl,
      userName: recipient.name || recipient.username,
    });
    const payload: NotificationPayload = {
      kind_id: kind.id,
      kind_name: kind.name,
      ...rendered,
      labels: request.labels,
      targets: request.targets,
      user_id: recipient.id,
      user_email: recipient.email,
      user_username: recipient.username,
      user_name: recipient.name,
    };
    const now = this.#options.now();
    const key = request.dedupeKey ?? defaultDedupeKey(request, kind, now);
    const rows: NotificationMessageRow[] = methods.map((method) => ({
      id: newId(),
      template_id: kind.id,
      user_id: recipient.id,
      method,
      status: 'pending',
      status_reason: '',
      created_by: request.createdBy,
      payload: JSON.stringify(payload),
      attempt_count: 0,
      targets: JSON.stringify(request.targets),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      leased_until: null,
      next_retry_after: null,
      dedupe_hash: createHash('sha256').update(`${key}\n${method}`).digest('hex'),
    }));
    const queued = await store.notifications.enqueue(rows);
    if (queued > 0) this.#options.onQueued?.();
    return queued;
  }

  #configured(method: string): boolean {
    if (method === 'smtp') return this.#options.smtpConfigured;
    if (method === 'webhook') return this.#options.values.notificationsWebhookEndpoint !== '';
    return false;
  }
}

/** The kind, the recipient, the labels and the day: the same event on the same day is one message. */
function defaultDedupeKey(request: NotificationRequest, kind: NotificationKind, now: Date): string {
  const labels = Object.keys(request.labels)
    .sort()
    .map((name) => [name, request.labels[name]]);
  return JSON.stringify([kind.id, request.userId, labels, now.toISOString().slice(0, 10)]);
}
