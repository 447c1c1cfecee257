// The user's inbox, followed over its WebSocket: each new notification as the server pushes it.
import type { GetInboxNotificationResponse } from '../sdk/wire/index.js';
import { socketUrl, type Unsubscribe } from './api.js';

/**
 * Hands each new notification of the signed-in user to `onNotification`. A dropped socket is
 * opened again after a pause that grows with each failure. `onOpen` is called each time the socket
 * opens, the first time too: notifications that came before it was open (while the page loaded,
 * while it was down) were not pushed and must be read again.
 */
export function watchInbox(onNotification: (message: GetInboxNotificationResponse) => void, onOpen: () => void): Unsubscribe {
  let socket: WebSocket | undefined;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  const open = () => {
    socket = new WebSocket(socketUrl('/notifications/inbox/watch'));
    socket.onopen = () => onOpen();
    socket.onmessage = (event) => {
      failures = 0;
      onNotification(JSON.parse(String(event.data)) as GetInboxNotificationResponse);
    };
    socket.onclose = () => {
      if (stopped) return;
      failures += 1;
      retry = setTimeout(open, Math.min(10_000, 250 * 2 ** failures));
    };
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(retry);
    socket?.close();
  };
}
