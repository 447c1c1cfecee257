import { NotFoundError } from '../../lib/errors.js';
import { siteObject, type RbacObject } from '../../rbac/index.js';
import * as queries from '../queries/notifications.js';
import * as siteConfig from '../queries/site-config.js';
import * as users from '../queries/users.js';
import { StoreFamily } from './store-family.js';

/** The site setting that pauses sending (the reference's `notifier_paused`). */
const PAUSED_KEY = 'notifier_paused';

/** Who a message goes to: what its text and its delivery need of the user. */
export interface NotificationRecipient {
  readonly id: string;
  readonly username: string;
  readonly name: string;
  readonly email: string;
}

/** A user's own notification objects: preferences and inbox entries are the user's. */
function ownedBy(type: 'notification_preference' | 'inbox_notification', userId: string): RbacObject {
  return { type, owner_id: userId };
}

/**
 * Notifications: the queue of messages (written and leased by the notifier), users' preferences,
 * the methods operators chose per kind, whether sending is paused, and each user's inbox.
 */
export class NotificationStore extends StoreFamily {
  /** Queues messages, leaving out those whose event is queued already; needs create on messages. */
  async enqueue(rows: readonly queries.NotificationMessageRow[]): Promise<number> {
    this.require('create', siteObject('notification_message'));
    return queries.insertMessages(this.db, rows);
  }

  /** Takes up to `count` due messages for `leasePeriodMs`; needs update on messages. */
  async lease(count: number, now: Date, leasePeriodMs: number): Promise<queries.NotificationMessageRow[]> {
    this.require('update', siteObject('notification_message'));
    return queries.leaseMessages(this.db, this.store.dialect, {
      count,
      now: now.toISOString(),
      leasedUntil: new Date(now.getTime() + leasePeriodMs).toISOString(),
    });
  }

  /** Records that a message went out; needs update on messages. */
  async markSent(id: string): Promise<void> {
    this.require('update', siteObject('notification_message'));
    await queries.markMessageSent(this.db, id, this.store.nowIso());
  }

  /** Records a failed sending, to be tried again at `retryAt` or never (`permanent`); needs update on messages. */
  async markFailed(id: string, reason: string, retryAt: Date | 'permanent'): Promise<void> {
    this.require('update', siteObject('notification_message'));
    await queries.markMessageFailed(this.db, id, {
      reason,
      retryAt: retryAt === 'permanent' ? null : retryAt.toISOString(),
      now: this.store.nowIso(),
    });
  }

  /** The newest messages of the queue; needs read on messages. */
  async listMessages(filter: { readonly status?: string; readonly limit: number }): ReturnType<typeof queries.listMessages> {
    this.require('read', siteObject('notification_message'));
    return queries.listMessages(this.db, filter);
  }

  /** The user a message goes to; needs read on users. */
  async recipient(userId: string): Promise<NotificationRecipient> {
    this.require('read', { type: 'user', id: userId, owner_id: userId });
    const row = await users.getUserById(this.db, userId);
    if (!row || row.deleted) throw new NotFoundError('user');
    return { id: row.id, username: row.username, name: row.name, email: row.email };
  }

  /** The kinds a user turned off or back on; needs read on the user's preferences. */
  async preferences(userId: string): ReturnType<typeof queries.listPreferences> {
    this.require('read', ownedBy('notification_preference', userId));
    return queries.listPreferences(this.db, userId);
  }

  /** Turns kinds off (true) or on (false) for a user; needs update on the user's preferences. */
  async setPreferences(userId: string, disabled: ReadonlyMap<string, boolean>): Promise<void> {
    this.require('update', ownedBy('notification_preference', userId));
    await this.requireOutranks(userId);
    await queries.upsertPreferences(this.db, userId, disabled, this.store.nowIso());
  }

  /**
   * The method chosen for each kind that has one. Every signed-in user may read them, as the
   * reference lists the kinds to all; other subjects need read on notification templates.
   */
  async templateMethods(): Promise<ReadonlyMap<string, string>> {
    if (this.subject.type !== 'user') this.require('read', siteObject('notification_template'));
    return new Map((await queries.listTemplateMethods(this.db)).map((row) => [row.template_id, row.method]));
  }

  /** Chooses a kind's method (empty: the deployment's), named `kindName` in the audit log; needs update on notification templates. */
  async setTemplateMethod(templateId: string, method: string, kindName = templateId): Promise<void> {
    this.require('update', siteObject('notification_template'));
    const before = (await queries.listTemplateMethods(this.db)).find((row) => row.template_id === templateId)?.method ?? '';
    await this.audited(
      (trx) => queries.setTemplateMethod(trx, templateId, method),
      () => ({
        resourceType: 'notification_template',
        action: 'write',
        resourceId: templateId,
        resourceTarget: kindName,
        old: { method: before },
        new: { method },
      }),
    );
  }

  /** Whether sending is paused; any signed-in user may read it, other subjects need read on the deployment config. */
  async paused(): Promise<boolean> {
    if (this.subject.type !== 'user') this.require('read', siteObject('deployment_config'));
    return (await siteConfig.getSiteValue(this.db, PAUSED_KEY)) === 'true';
  }

  /** Pauses or resumes sending; needs update on the deployment config. */
  async setPaused(paused: boolean): Promise<void> {
    this.require('update', siteObject('deployment_config'));
    const before = (await siteConfig.getSiteValue(this.db, PAUSED_KEY)) === 'true';
    await this.audited(
      (trx) => siteConfig.setSiteValue(trx, PAUSED_KEY, String(paused)),
      () => ({
        resourceType: 'notifications_settings',
        action: 'write',
        resourceId: '00000000-0000-0000-0000-000000000000',
        resourceTarget: 'notifications settings',
        old: { notifier_paused: before },
        new: { notifier_paused: paused },
      }),
    );
  }

  /**
   * Puts a notification in its user's inbox; needs create on that user's inbox. False when one of
   * that id is there already: a message sent again after a crash is still one notification.
   */
  async insertInbox(row: queries.InboxNotificationRow): Promise<boolean> {
    this.require('create', ownedBy('inbox_notification', row.user_id));
    return queries.insertInboxNotification(this.db, row);
  }

  /** One inbox notification; one the subject may not read is not found. */
  async getInbox(id: string): Promise<queries.InboxNotificationRow> {
    const row = await queries.getInboxNotification(this.db, id);
    if (!row || !this.can('read', ownedBy('inbox_notification', row.user_id))) throw new NotFoundError('inbox notification');
    return row;
  }

  /** A user's inbox, newest first; needs read on that user's inbox. */
  async listInbox(filter: queries.InboxFilter): Promise<queries.InboxNotificationRow[]> {
    this.require('read', ownedBy('inbox_notification', filter.userId));
    return queries.listInboxNotifications(this.db, filter);
  }

  /** How many notifications of a user's inbox are unread; needs read on that user's inbox. */
  async unreadCount(userId: string): Promise<number> {
    this.require('read', ownedBy('inbox_notification', userId));
    return queries.countUnreadInbox(this.db, userId);
  }

  /** Marks an inbox notification read or unread; needs update on its user's inbox. Returns it as now stored. */
  async setInboxRead(row: queries.InboxNotificationRow, isRead: boolean): Promise<queries.InboxNotificationRow> {
    this.require('update', ownedBy('inbox_notification', row.user_id));
    const readAt = isRead ? (row.read_at ?? this.store.nowIso()) : null;
    await queries.setInboxReadAt(this.db, row.id, readAt);
    return { ...row, read_at: readAt };
  }

  /** Marks every notification of a user's inbox read; needs update on that user's inbox. */
  async markAllInboxRead(userId: string): Promise<void> {
    this.require('update', ownedBy('inbox_notification', userId));
    await queries.markAllInboxRead(this.db, userId, this.store.nowIso());
  }
}
