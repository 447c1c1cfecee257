import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { CoveClient } from './client.js';
import { RELAY_PROTOCOL_VERSION, type RelayService } from './wire/relay-protocol.js';

/**
 * What a stream reaches inside a workspace: a service of the agent, or a port (TCP unless
 * `network` says UDP; a UDP stream carries one datagram per binary message).
 */
export type StreamTarget = { readonly service: RelayService } | { readonly port: number; readonly network?: 'tcp' | 'udp' };

/** A stream that closed before it was ready, with the daemon's or agent's reason. */
export class AgentStreamError extends Error {
  constructor(
    readonly code: number,
    reason: string,
  ) {
    super(reason || `the stream closed (${code})`);
  }
}

/** An open relay stream: the socket, and the same bytes as a Node duplex. */
export interface AgentStream {
  readonly socket: WebSocket;
  /** Binary frames both ways, for SSH clients, port forwards and pings. */
  readonly stream: Duplex;
}

/**
 * Opens a relay stream to an agent (`/workspaceagents/{id}/coordinate`) and resolves once the
 * agent has connected the target: the daemon's `ready` frame has arrived. The duplex is made in
 * the same tick as `ready` is read, so bytes that came right behind it are not lost.
 */
export async function openAgentStream(client: CoveClient, agentId: string, target: StreamTarget): Promise<AgentStream> {
  const { createWebSocketStream } = await import('ws');
  return openReady(client, agentId, target, (socket) => ({ socket, stream: createWebSocketStream(socket) }));
}

/**
 * Opens a relay stream like {@link openAgentStream} but hands over the bare socket, for services
 * that exchange text and binary frames and speak only when spoken to (the speed test): nothing
 * can arrive between `ready` and the caller's listeners.
 */
export async function openAgentSocket(client: CoveClient, agentId: string, target: StreamTarget): Promise<WebSocket> {
  return openReady(client, agentId, target, (socket) => socket);
}

async function openReady<T>(client: CoveClient, agentId: string, target: StreamTarget, whenReady: (socket: WebSocket) => T): Promise<T> {
  const query = {
    version: RELAY_PROTOCOL_VERSION,
    ...('service' in target ? { service: target.service } : { port: target.port, ...(target.network === 'udp' ? { network: 'udp' } : {}) }),
  };
  const socket = await client.openSocket(`/workspaceagents/${encodeURIComponent(agentId)}/coordinate`, query);
  return new Promise((resolve, reject) => {
    const onClose = (code: number, reason: Buffer): void => reject(new AgentStreamError(code, reason.toString('utf8')));
    socket.once('close', onClose);
    socket.once('message', (data, isBinary) => {
      socket.off('close', onClose);
      if (!isBinary && isReady(data.toString())) {
        resolve(whenReady(socket));
        return;
      }
      socket.terminate();
      reject(new AgentStreamError(1002, 'the daemon did not say the stream was ready'));
    });
    socket.resume();
  });
}

function isReady(text: string): boolean {
  try {
    return (JSON.parse(text) as { type?: unknown }).type === 'ready';
  } catch {
    return false;
  }
}
