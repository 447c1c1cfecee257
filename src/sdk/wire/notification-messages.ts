import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from './common.js';

/** One message of the notification queue, as `GET /notifications/messages` lists it (ours: the reference has no such list). */
export const NotificationMessage = Type.Object({
  id: Type.String(),
  template_id: Type.String(),
  /** The kind's name; empty for a kind this version does not know. */
  template_name: Type.String(),
  user_id: Type.String(),
  /** The recipient's username; empty once the user is gone. */
  username: Type.String(),
  /** `smtp`, `webhook` or `inbox`. */
  method: Type.String(),
  /** `pending`, `leased`, `sent`, `temporary_failure` or `permanent_failure`. */
  status: Type.String(),
  /** Why the last attempt failed; empty otherwise. */
  status_reason: Type.String(),
  attempt_count: Type.Integer(),
  title: Type.String(),
  created_by: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  /** When a temporarily failed message is tried again. */
  next_retry_after: Type.Union([DateTime, Type.Null()]),
});
export type NotificationMessage = Static<typeof NotificationMessage>;

/** The message statuses a list may ask for. */
export const NOTIFICATION_MESSAGE_STATUSES = ['pending', 'leased', 'sent', 'temporary_failure', 'permanent_failure'] as const;

/** `GET /notifications/messages` query. */
export interface ListNotificationMessagesRequest {
  readonly status?: string;
  readonly limit?: number;
}
