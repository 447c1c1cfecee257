/**
 * The pubsub channel a user's new inbox notifications are announced on (payload: the notification's
 * id), so that inbox watchers on every replica hear of them.
 */
export function inboxChannel(userId: string): string {
  return `inbox_notifications:${userId}`;
}
