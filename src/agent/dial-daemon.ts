import { clientTlsOptions } from '../sdk/client-tls.js';
import type { WebSocket } from 'ws';

/**
 * Opens a WebSocket to the daemon's agent API (`path` under `/api/v2`) with the agent token, and
 * resolves once it is open, paused, so the caller attaches its listeners before anything is read.
 * A refusal rejects with an error naming `what` was refused, whose `status` is the HTTP status.
 */
export async function dialDaemon(
  url: string,
  token: string,
  path: string,
  what: string,
  query: Readonly<Record<string, string>> = {},
): Promise<WebSocket> {
  const { WebSocket } = await import('ws');
  const target = new URL(`${url.replace(/\/$/, '')}/api/v2${path}`);
  target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
  for (const [key, value] of Object.entries(query)) target.searchParams.set(key, value);
  const socket = new WebSocket(target, {
    headers: { 'Service-Session-Token': token },
    perMessageDeflate: false,
    ...clientTlsOptions(),
  });
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.pause();
      resolve(socket);
    });
    socket.once('unexpected-response', (_request, response) => {
      response.resume();
      socket.terminate();
      reject(Object.assign(new Error(`the daemon refused ${what} (HTTP ${response.statusCode})`), { status: response.statusCode }));
    });
    socket.once('error', reject);
  });
}
