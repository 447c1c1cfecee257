import type { Socket } from 'node:net';

interface Tracked {
  read: number;
  written: number;
}

/**
 * Bytes in and out of the agent's relay streams, for `stats`. It reads the counters of the
 * streams' network sockets, so what is counted is what crossed the wire, framing included.
 */
export class TrafficMeter {
  readonly #live = new Map<Socket, Tracked>();
  #rx = 0;
  #tx = 0;

  /** Counts a socket until it closes. */
  track(socket: Socket | undefined): void {
    if (!socket || this.#live.has(socket)) return;
    this.#live.set(socket, { read: socket.bytesRead, written: socket.bytesWritten });
    socket.once('close', () => {
      this.#settle(socket);
      this.#live.delete(socket);
    });
  }

  /** Bytes received and sent since the previous call. */
  take(): { readonly rx_bytes: number; readonly tx_bytes: number } {
    for (const socket of this.#live.keys()) this.#settle(socket);
    const taken = { rx_bytes: this.#rx, tx_bytes: this.#tx };
    this.#rx = 0;
    this.#tx = 0;
    return taken;
  }

  #settle(socket: Socket): void {
    const tracked = this.#live.get(socket);
    if (!tracked) return;
    this.#rx += socket.bytesRead - tracked.read;
    this.#tx += socket.bytesWritten - tracked.written;
    tracked.read = socket.bytesRead;
    tracked.written = socket.bytesWritten;
  }
}
