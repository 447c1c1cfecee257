import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from './common.js';

/** A kind of notification: its name, text templates, group and method. */
export const NotificationTemplate = Type.Object({
  id: Type.String(),
  name: Type.String(),
  title_template: Type.String(),
  body_template: Type.String(),
  /** JSON array of { label, url } templates. */
  actions: Type.String(),
  group: Type.String(),
  /** The method an operator chose for this kind; empty for the deployment's default. */
  method: Type.String(),
  kind: Type.String(),
  enabled_by_default: Type.Boolean(),
});
export type NotificationTemplate = Static<typeof NotificationTemplate>;

/** `GET /notifications/dispatch-methods`. */
export const NotificationMethodsResponse = Type.Object({ available: Type.Array(Type.String()), default: Type.String() });
export type NotificationMethodsResponse = Static<typeof NotificationMethodsResponse>;

/** `PUT /notifications/templates/{id}/method`: empty for the deployment's default. */
export const UpdateNotificationTemplateMethod = Type.Object({ method: Type.Optional(Type.String()) });
export type UpdateNotificationTemplateMethod = Static<typeof UpdateNotificationTemplateMethod>;

/** One kind of notification a user turned off (or on again). */
export const NotificationPreference = Type.Object({ id: Type.String(), disabled: Type.Boolean(), updated_at: DateTime });
export type NotificationPreference = Static<typeof NotificationPreference>;

/** `PUT /users/{user}/notifications/preferences`: template id -> disabled. */
export const UpdateUserNotificationPreferences = Type.Object({
  template_disabled_map: Type.Record(Type.String(), Type.Boolean()),
});
export type UpdateUserNotificationPreferences = Static<typeof UpdateUserNotificationPreferences>;

/** `GET`/`PUT /notifications/settings`: whether this deployment's sending is paused. */
export const NotificationsSettings = Type.Object({ notifier_paused: Type.Boolean() });
export type NotificationsSettings = Static<typeof NotificationsSettings>;

/** A link of an inbox notification. */
export const InboxNotificationAction = Type.Object({ label: Type.String(), url: Type.String() });
export type InboxNotificationAction = Static<typeof InboxNotificationAction>;

/** A notification in the caller's in-app inbox. */
export const InboxNotification = Type.Object({
  id: Type.String(),
  user_id: Type.String(),
  template_id: Type.String(),
  targets: Type.Array(Type.String()),
  title: Type.String(),
  content: Type.String(),
  icon: Type.String(),
  actions: Type.Array(InboxNotificationAction),
  read_at: Type.Union([DateTime, Type.Null()]),
  created_at: DateTime,
});
export type InboxNotification = Static<typeof InboxNotification>;

/** `GET /notifications/inbox`: up to 25, newest first, and the caller's unread count. */
export const ListInboxNotificationsResponse = Type.Object({
  notifications: Type.Array(InboxNotification),
  unread_count: Type.Integer(),
});
export type ListInboxNotificationsResponse = Static<typeof ListInboxNotificationsResponse>;

/** `GET /notifications/inbox` query: comma-separated targets and templates, `read`/`unread`/`all`, and the id to page before. */
export interface ListInboxNotificationsRequest {
  readonly targets?: string;
  readonly templates?: string;
  readonly read_status?: 'read' | 'unread' | 'all';
  readonly starting_before?: string;
}

/** A message of the inbox's WebSocket watch, and the answer of marking one read. */
export const GetInboxNotificationResponse = Type.Object({ notification: InboxNotification, unread_count: Type.Integer() });
export type GetInboxNotificationResponse = Static<typeof GetInboxNotificationResponse>;

/** `PUT /notifications/inbox/{id}/read-status`. */
export const UpdateInboxNotificationReadStatusRequest = Type.Object({ is_read: Type.Boolean() });
export type UpdateInboxNotificationReadStatusRequest = Static<typeof UpdateInboxNotificationReadStatusRequest>;

/** The answer of `PUT /notifications/inbox/{id}/read-status`. */
export const UpdateInboxNotificationReadStatusResponse = GetInboxNotificationResponse;
export type UpdateInboxNotificationReadStatusResponse = GetInboxNotificationResponse;
