import { ClientCore } from '../client-core.js';
import { followSocket } from '../follow-socket.js';
import type {
  GetInboxNotificationResponse,
  ListInboxNotificationsRequest,
  ListNotificationMessagesRequest,
  NotificationMessage,
  ListInboxNotificationsResponse,
  NotificationMethodsResponse,
  NotificationPreference,
  NotificationsSettings,
  NotificationTemplate,
  UpdateInboxNotificationReadStatusResponse,
  UpdateUserNotificationPreferences,
} from '../wire/index.js';

/**
 * Notifications: the deployment's kinds and methods, users' preferences, and the in-app inbox.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class NotificationsCalls extends ClientCore {
  /** The kinds of notification the deployment sends. */
  systemNotificationTemplates(): Promise<NotificationTemplate[]> {
    return this.request('GET', '/notifications/templates/system');
  }

  /** The methods the deployment can send by, and its default. */
  notificationDispatchMethods(): Promise<NotificationMethodsResponse> {
    return this.request('GET', '/notifications/dispatch-methods');
  }

  /** Sends one kind of notification by `method` (`smtp`, `webhook`, `inbox`), or by the default when empty. */
  async updateNotificationTemplateMethod(templateId: string, method: string): Promise<void> {
    await this.request('PUT', `/notifications/templates/${encodeURIComponent(templateId)}/method`, { body: { method } });
  }

  /** Whether sending is paused. */
  notificationsSettings(): Promise<NotificationsSettings> {
    return this.request('GET', '/notifications/settings');
  }

  /** Pauses or resumes sending; queued messages wait while paused. */
  updateNotificationsSettings(settings: NotificationsSettings): Promise<NotificationsSettings> {
    return this.request('PUT', '/notifications/settings', { body: settings });
  }

  /** Sends a test notification to the caller by every configured method. */
  async testNotification(): Promise<void> {
    await this.request('POST', '/notifications/test');
  }

  /** The kinds of notification the user turned off or on. */
  async userNotificationPreferences(user: string): Promise<NotificationPreference[]> {
    return (
      (await this.request<NotificationPreference[] | null>('GET', `/users/${encodeURIComponent(user)}/notifications/preferences`)) ?? []
    );
  }

  /** Turns kinds of notification off (true) or on (false) for the user. */
  updateUserNotificationPreferences(user: string, request: UpdateUserNotificationPreferences): Promise<NotificationPreference[]> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/notifications/preferences`, { body: request });
  }

  /** The caller's inbox: up to 25 notifications, newest first, and the unread count. */
  inboxNotifications(query: ListInboxNotificationsRequest = {}): Promise<ListInboxNotificationsResponse> {
    return this.request('GET', '/notifications/inbox', { query: { ...query } });
  }

  /** Marks one of the caller's notifications read or unread. */
  updateInboxNotificationReadStatus(id: string, isRead: boolean): Promise<UpdateInboxNotificationReadStatusResponse> {
    return this.request('PUT', `/notifications/inbox/${encodeURIComponent(id)}/read-status`, { body: { is_read: isRead } });
  }

  /** Marks all of the caller's notifications read. */
  async markAllInboxNotificationsAsRead(): Promise<void> {
    await this.request('PUT', '/notifications/inbox/mark-all-as-read');
  }

  /** Hands each new notification of the caller's inbox to `onNotification` until `signal` aborts. */
  watchInboxNotifications(
    onNotification: (message: GetInboxNotificationResponse) => void,
    signal: AbortSignal,
    query: { readonly read_status?: 'read' | 'unread' | 'all' } = {},
  ): Promise<void> {
    return followSocket(
      this,
      '/notifications/inbox/watch',
      { ...query },
      (text) => onNotification(JSON.parse(text) as GetInboxNotificationResponse),
      signal,
    );
  }

  /** The queue's newest messages, with their status, attempts and why they failed (owners). */
  notificationMessages(query: ListNotificationMessagesRequest = {}): Promise<NotificationMessage[]> {
    return this.request('GET', '/notifications/messages', { query: { ...query } });
  }
}
