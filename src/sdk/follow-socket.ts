import type { ClientCore, Query } from './client-core.js';

/**
 * Opens a WebSocket on `path`, hands each text frame to `onMessage`, and resolves on a normal
 * close, or once `signal` aborts (the socket is then closed from this side). A function rather than
 * a client method, so that it stays out of the client's public surface.
 */
export async function followSocket(
  client: ClientCore,
  path: string,
  query: Query,
  onMessage: (text: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted) return;
  const socket = await client.openSocket(path, query);
  const stop = (): void => socket.close(1000, 'client done');
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  await new Promise<void>((resolve, reject) => {
    socket.on('message', (data) => {
      try {
        onMessage(data.toString());
      } catch (error) {
        socket.close();
        reject(error);
      }
    });
    socket.on('error', reject);
    socket.on('close', (code, reason) => {
      if (code === 1000 || code === 1005 || signal?.aborted) resolve();
      else reject(new Error(`the stream closed unexpectedly (${code} ${reason.toString()})`));
    });
    socket.resume();
  }).finally(() => signal?.removeEventListener('abort', stop));
}
