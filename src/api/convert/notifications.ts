import { NOTIFICATION_KINDS, notificationKindById, type NotificationKind } from '../../domain/notifications/catalogue.js';
import { parsePayload } from '../../domain/notifications/payload.js';
import type { InboxNotificationRow, NotificationMessageRow } from '../../store/authorized-store.js';
import type { InboxNotification, NotificationMessage, NotificationTemplate } from '../../sdk/wire/index.js';

/** Every kind as the reference lists its system templates: the text with `{{.Labels.name}}` as `{{name}}`. */
export function toWireNotificationTemplates(methods: ReadonlyMap<string, string>): NotificationTemplate[] {
  return Object.values(NOTIFICATION_KINDS).map((kind: NotificationKind) => ({
    id: kind.id,
    name: kind.name,
    title_template: kind.title,
    body_template: kind.body,
    actions: JSON.stringify(kind.actions),
    group: kind.group,
    method: methods.get(kind.id) ?? '',
    kind: 'system',
    enabled_by_default: kind.enabledByDefault,
  }));
}

/** An inbox row as the reference sends it. */
export function toWireInboxNotification(row: InboxNotificationRow): InboxNotification {
  return {
    id: row.id,
    user_id: row.user_id,
    template_id: row.template_id,
    targets: parseArray<string>(row.targets),
    title: row.title,
    content: row.content,
    icon: row.icon,
    actions: parseArray<{ label: string; url: string }>(row.actions),
    read_at: row.read_at,
    created_at: row.created_at,
  };
}

/** A queued message, for the operator's list. */
export function toWireNotificationMessage(row: NotificationMessageRow & { readonly username: string | null }): NotificationMessage {
  return {
    id: row.id,
    template_id: row.template_id,
    template_name: notificationKindById(row.template_id)?.name ?? '',
    user_id: row.user_id,
    username: row.username ?? '',
    method: row.method,
    status: row.status,
    status_reason: row.status_reason,
    attempt_count: row.attempt_count,
    title: parsePayload(row.payload).title,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    next_retry_after: row.next_retry_after,
  };
}

function parseArray<T>(json: string): T[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? (value as T[]) : [];
}
