import type { WebSocket } from 'ws';

/**
 * Closes a WebSocket and resolves once it is closed; a peer that does not answer within `graceMs`
 * is cut off, rather than holding the caller for ws's 30 s close timeout.
 */
export function closeSocket(socket: WebSocket | undefined, reason: string, graceMs: number): Promise<void> {
  if (!socket || socket.readyState === socket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => socket.terminate(), graceMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    // A paused socket would never read the peer's answer to the close.
    socket.resume();
    socket.close(1000, reason);
  });
}
