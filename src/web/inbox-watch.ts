// The user's inbox, followed over its WebSocket: each new notification as the server pushes it.
import type { GetInboxNotificationResponse } from '../sdk/wire/index.js';
import { socketUrl, type Unsubscribe } from './api.js';
import { reconnectingSocket } from './reconnecting-socket.js';

/**
 * Hands each new notification of the signed-in user to `onNotification`. A dropped socket is
 * opened again after a pause that grows with each failure. `onOpen` is called each time the socket
 * opens, the first time too: notifications that came before it was open (while the page loaded,
 * while it was down) were not pushed and must be read again.
 */
export function watchInbox(onNotification: (message: GetInboxNotificationResponse) => void, onOpen: () => void): Unsubscribe {
  return reconnectingSocket({
    url: () => socketUrl('/notifications/inbox/watch'),
    onOpen,
    onMessage: (data) => onNotification(JSON.parse(data) as GetInboxNotificationResponse),
    onClose: () => 'reconnect',
  });
}
