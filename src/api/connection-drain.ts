import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long requests in flight may go on finishing once the daemon stops, before their connections are cut. */
export const IN_FLIGHT_GRACE_MS = 3000;

/** How often, while stopping, connections whose request has finished are closed. */
const IDLE_SWEEP_MS = 100;

/**
 * Ends every connection of the HTTP server when the daemon stops, within a bound. Closing the
 * server only stops new connections: it then waits for the open ones, and a server-sent event
 * stream, a proxied app's answer or a WebSocket whose peer does not answer its close would keep
 * the daemon running for as long as they last.
 *
 * On `drain`: streams registered with `stream` end at once (their clients reconnect elsewhere),
 * connections left idle by a finished request close as they become idle, and whatever is still
 * open after IN_FLIGHT_GRACE_MS is destroyed: sockets of requests in flight and of WebSockets
 * (which the WebSocket plugin has asked to close with 1001 already) alike.
 */
export class ConnectionDrain {
  readonly #sockets = new Set<Socket>();
  readonly #streams = new Set<ServerResponse>();
  #draining = false;

  constructor(private readonly server: Server) {
    // Every socket, upgraded ones included: the HTTP server forgets a socket once it upgrades.
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  /** A streamed answer with no end of its own (server-sent events): ended when the daemon stops. */
  stream(response: ServerResponse): void {
    if (this.#draining) {
      response.end();
      return;
    }
    this.#streams.add(response);
    response.once('close', () => this.#streams.delete(response));
  }

  /** Starts ending the connections; the server's own `close` then completes within the grace. */
  drain(graceMs = IN_FLIGHT_GRACE_MS): void {
    if (this.#draining) return;
    this.#draining = true;
    for (const response of this.#streams) response.end();
    this.#streams.clear();
    const sweep = setInterval(() => this.server.closeIdleConnections(), IDLE_SWEEP_MS);
    const cut = setTimeout(() => {
      clearInterval(sweep);
      for (const socket of this.#sockets) socket.destroy();
    }, graceMs);
    // Neither timer may keep a stopped process alive on its own.
    sweep.unref();
    cut.unref();
    this.server.once('close', () => {
      clearInterval(sweep);
      clearTimeout(cut);
    });
  }
}
