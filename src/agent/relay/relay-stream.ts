import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

/**
 * Dials the daemon back for a stream it asked for: `GET /workspaceagents/me/relay?stream_id=…`
 * with the agent token. Resolves with the open socket, paused, so the caller can attach its
 * listeners before anything is read.
 */
export async function dialRelayStream(url: string, token: string, streamId: string): Promise<WebSocket> {
  const { WebSocket } = await import('ws');
  const target = new URL(`${url.replace(/\/$/, '')}/api/v2/workspaceagents/me/relay`);
  target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
  target.searchParams.set('stream_id', streamId);
  const socket = new WebSocket(target, { headers: { 'Service-Session-Token': token }, perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.pause();
      resolve(socket);
    });
    socket.once('unexpected-response', (_request, response) => {
      response.resume();
      socket.terminate();
      reject(new Error(`the daemon refused the relay stream (HTTP ${response.statusCode})`));
    });
    socket.once('error', reject);
  });
}

/** Tells the daemon the target is connected; data follows in binary frames. */
export function sendReady(socket: WebSocket): void {
  socket.send(JSON.stringify({ type: 'ready' }));
}

/** The network socket under a `ws` WebSocket, whose byte counters the agent's stats read. */
export function networkSocketOf(socket: WebSocket): Socket | undefined {
  return (socket as unknown as { _socket?: Socket })._socket;
}

/**
 * Closes a stream, reading again first: a paused socket never reads the peer's closing frame, so
 * its close would wait out the 30 s close timeout.
 */
export function closeStream(socket: WebSocket, code: number, reason: string): void {
  socket.resume();
  socket.close(code, reason.slice(0, 120));
}
