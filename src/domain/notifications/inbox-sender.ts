import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { PubSub } from '../../store/pubsub.js';
import { inboxChannel } from './inbox-channel.js';
import type { NotificationSender, SendOutcome } from './send-outcome.js';

/**
 * Puts a message in the recipient's inbox, under the message's own id (a message sent again after
 * a crash stays one notification), and tells watchers on every replica.
 */
export function inboxSender(store: AuthorizedStore, pubsub: PubSub): NotificationSender {
  return async (message, payload): Promise<SendOutcome> => {
    const inserted = await store.notifications.insertInbox({
      id: message.id,
      user_id: message.user_id,
      template_id: message.template_id,
      targets: JSON.stringify(payload.targets),
      title: payload.title,
      content: payload.body,
      icon: '',
      actions: JSON.stringify(payload.actions),
      read_at: null,
      created_at: message.created_at,
    });
    if (inserted) await pubsub.publish(inboxChannel(message.user_id), message.id);
    return { kind: 'sent' };
  };
}
