import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback that a test can cut like a network: `cut()` ends every connection
 * through it and holds new ones without an answer (as a host that vanished does), `restore()`
 * passes new ones on again, and `dropHeld()` ends those it held.
 */
export interface CuttableProxy {
  readonly port: number;
  /** Connections accepted and held, unanswered, since the cut. */
  readonly held: number;
  cut(): void;
  restore(): void;
  dropHeld(): void;
  close(): Promise<void>;
}

export async function startCuttableProxy(target: { readonly host: string; readonly port: number }): Promise<CuttableProxy> {
  let cut = false;
  const passing = new Set<Socket>();
  const held = new Set<Socket>();
  let heldCount = 0;
  const server: Server = createServer((client) => {
    client.on('error', () => undefined);
    if (cut) {
      held.add(client);
      heldCount++;
      client.on('close', () => held.delete(client));
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    passing.add(client);
    client.on('close', () => passing.delete(client));
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get held() {
      return heldCount;
    },
    cut: () => {
      cut = true;
      heldCount = 0;
      for (const socket of passing) socket.destroy();
    },
    restore: () => {
      cut = false;
    },
    dropHeld: () => {
      for (const socket of held) socket.destroy();
    },
    close: async () => {
      for (const socket of [...passing, ...held]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
