import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { dialDaemon } from '../dial-daemon.js';

/**
 * Dials the daemon back for a stream it asked for: `GET /workspaceagents/me/relay?stream_id=…`
 * with the agent token. Resolves with the open socket, paused.
 */
export function dialRelayStream(url: string, token: string, streamId: string): Promise<WebSocket> {
  return dialDaemon(url, token, '/workspaceagents/me/relay', 'the relay stream', { stream_id: streamId });
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
