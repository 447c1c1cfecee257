import type { Logger } from 'pino';
import type { AuthorizedStore, NotificationMessageRow } from '../../store/authorized-store.js';
import { parsePayload } from './payload.js';
import type { NotificationSender, SendOutcome } from './send-outcome.js';

/** How the dispatcher leases, sends and retries: the `--notifications-*` settings. */
export interface DispatchSettings {
  readonly leaseCount: number;
  readonly leasePeriodMs: number;
  readonly dispatchTimeoutMs: number;
  readonly maxSendAttempts: number;
  readonly retryIntervalMs: number;
}

/** What one run did. */
export interface DispatchResult {
  readonly sent: number;
  readonly failed: number;
}

/** Leases in one run at most this many times the lease count, so that one run cannot go on for ever. */
const MAX_BATCHES_PER_RUN = 10;

/**
 * Sends what is due in the queue. Each run leases a batch (no other replica takes those messages
 * while the lease lasts), sends each by its method within the dispatch timeout, and records the
 * outcome; a failure is tried again after the retry interval, doubled at each further attempt,
 * until the attempts run out, and is then kept as failed for good, with its reason. While sending
 * is paused nothing is leased: messages wait in the queue.
 */
export class NotificationDispatcher {
  readonly #store: AuthorizedStore;
  readonly #senders: Readonly<Record<string, NotificationSender>>;
  readonly #settings: DispatchSettings;
  readonly #now: () => Date;
  readonly #logger: Logger;

  constructor(options: {
    readonly store: AuthorizedStore;
    readonly senders: Readonly<Record<string, NotificationSender>>;
    readonly settings: DispatchSettings;
    readonly now: () => Date;
    readonly logger: Logger;
  }) {
    this.#store = options.store;
    this.#senders = options.senders;
    this.#settings = options.settings;
    this.#now = options.now;
    this.#logger = options.logger;
  }

  async run(): Promise<DispatchResult> {
    let sent = 0;
    let failed = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
      // Asked before each batch: a pause takes effect at the next one.
      if (await this.#store.notifications.paused()) break;
      const { leaseCount, leasePeriodMs } = this.#settings;
      const leased = await this.#store.notifications.lease(leaseCount, this.#now(), leasePeriodMs);
      const outcomes = await Promise.all(leased.map((message) => this.#deliver(message)));
      sent += outcomes.filter((ok) => ok).length;
      failed += outcomes.filter((ok) => !ok).length;
      if (leased.length < leaseCount) break;
    }
    return { sent, failed };
  }

  /** Sends one leased message and records how it went; true when it was sent. */
  async #deliver(message: NotificationMessageRow): Promise<boolean> {
    const outcome = await this.#send(message);
    const notifications = this.#store.notifications;
    if (outcome.kind === 'sent') {
      await notifications.markSent(message.id);
      this.#logger.debug({ message_id: message.id, method: message.method }, 'notification sent');
      return true;
    }
    const lastAttempt = message.attempt_count >= this.#settings.maxSendAttempts;
    const retryAt =
      outcome.kind === 'permanent' || lastAttempt
        ? 'permanent'
        : new Date(this.#now().getTime() + this.#settings.retryIntervalMs * 2 ** Math.max(0, message.attempt_count - 1));
    await notifications.markFailed(message.id, outcome.reason, retryAt);
    this.#logger.warn(
      {
        message_id: message.id,
        method: message.method,
        attempt: message.attempt_count,
        reason: outcome.reason,
        retry: retryAt !== 'permanent',
      },
      'could not send a notification',
    );
    return false;
  }

  async #send(message: NotificationMessageRow): Promise<SendOutcome> {
    const sender = this.#senders[message.method];
    if (!sender) return { kind: 'permanent', reason: `${message.method} is not configured` };
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#settings.dispatchTimeoutMs);
    try {
      return await sender(message, parsePayload(message.payload), timeout.signal);
    } catch (error) {
      return { kind: 'retry', reason: `${message.method}: ${(error as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  }
}
