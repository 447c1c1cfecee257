import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Connection, ServerChannel, TcpipBindInfo, TcpipRequestInfo } from 'ssh2';
import type { AgentLogger } from '../agent-logger.js';

/**
 * Where `-R` listeners bind, whatever address the client names: the loopback interface, as sshd
 * does by default (`GatewayPorts no`). A workspace may be a directory on a shared host (the
 * local-shell template), where every interface would open the port to the host's network.
 */
const LOOPBACK = '127.0.0.1';

/** How long a `direct-tcpip` connect may take before the channel is refused. */
const CONNECT_TIMEOUT_MS = 15_000;

/**
 * TCP forwarding for one SSH connection: `direct-tcpip` channels (the client's `-L`) connect from
 * inside the workspace, and `tcpip-forward` requests (the client's `-R`) listen here and hand each
 * accepted connection back to the client. Everything it opened goes away with {@link close}.
 */
export class PortForwarding {
  private readonly listeners = new Map<string, Server[]>();
  private readonly sockets = new Set<Socket>();
  private closed = false;

  constructor(
    private readonly client: Connection,
    private readonly logger: AgentLogger,
  ) {}

  /** A `direct-tcpip` channel open: accepted only once the connection inside the workspace is up. */
  openDirect(accept: () => ServerChannel | undefined, reject: () => void, info: TcpipRequestInfo): void {
    if (this.closed) {
      reject();
      return;
    }
    const socket = connect({ host: info.destIP, port: info.destPort });
    this.track(socket);
    let connected = false;
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy(new Error('connect timed out')));
    socket.once('connect', () => {
      connected = true;
      socket.setTimeout(0);
      const channel = accept();
      if (!channel) {
        socket.destroy();
        return;
      }
      this.splice(channel, socket, `${info.destIP}:${info.destPort}`);
    });
    socket.on('error', (err) => {
      if (connected) {
        this.logger.warn({ err: err.message, destination: `${info.destIP}:${info.destPort}` }, 'ssh forwarded connection error');
        return;
      }
      // The client sees an ordinary "open failed" for this channel; the connection carries on.
      this.logger.warn({ err: err.message, destination: `${info.destIP}:${info.destPort}` }, 'ssh direct-tcpip connect failed');
      reject();
    });
  }

  /** A global request: `tcpip-forward` and `cancel-tcpip-forward`; anything else is refused. */
  request(accept: ((port?: number) => void) | undefined, reject: (() => void) | undefined, name: string, info: TcpipBindInfo): void {
    if (name === 'tcpip-forward') this.listen(accept, reject, info);
    else if (name === 'cancel-tcpip-forward') this.cancel(accept, reject, info);
    else reject?.();
  }

  /** Closes every listener and every forwarded connection. */
  close(): void {
    this.closed = true;
    for (const servers of this.listeners.values()) for (const server of servers) server.close();
    this.listeners.clear();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  private listen(accept: ((port?: number) => void) | undefined, reject: (() => void) | undefined, info: TcpipBindInfo): void {
    if (this.closed) {
      reject?.();
      return;
    }
    let boundPort = info.bindPort;
    const onConnection = (socket: Socket): void => this.forwardIn(socket, info.bindAddr, boundPort);
    const primary = createServer(onConnection);
    primary.once('error', (err) => {
      this.logger.warn({ err: err.message, address: info.bindAddr, port: info.bindPort }, 'ssh tcpip-forward listen failed');
      reject?.();
    });
    primary.listen({ host: LOOPBACK, port: info.bindPort }, () => {
      boundPort = (primary.address() as AddressInfo).port;
      const servers = [primary];
      const ready = (): void => {
        if (this.closed) {
          for (const server of servers) server.close();
          return;
        }
        for (const server of servers) {
          server.removeAllListeners('error');
          server.on('error', (err) => this.logger.warn({ err: err.message, port: boundPort }, 'ssh tcpip-forward listener error'));
        }
        const key = listenerKey(info.bindAddr, boundPort);
        for (const old of this.listeners.get(key) ?? []) old.close();
        this.listeners.set(key, servers);
        // The client learns the port only when it asked for port 0.
        accept?.(info.bindPort === 0 ? boundPort : undefined);
      };
      // "localhost" may resolve to ::1 first for the program that connects: listen there as well, as
      // sshd does, when the machine has IPv6 loopback at all.
      const secondary = createServer(onConnection);
      secondary.once('error', () => ready());
      secondary.listen({ host: '::1', port: boundPort, ipv6Only: true }, () => {
        servers.push(secondary);
        ready();
      });
    });
  }

  private cancel(accept: ((port?: number) => void) | undefined, reject: (() => void) | undefined, info: TcpipBindInfo): void {
    const key = listenerKey(info.bindAddr, info.bindPort);
    const servers = this.listeners.get(key);
    if (!servers) {
      reject?.();
      return;
    }
    this.listeners.delete(key);
    for (const server of servers) server.close();
    accept?.();
  }

  /** One connection accepted by a `-R` listener, handed to the client as a `forwarded-tcpip` channel. */
  private forwardIn(socket: Socket, bindAddr: string, boundPort: number): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.track(socket);
    socket.on('error', (err) => this.logger.warn({ err: err.message, port: boundPort }, 'ssh forwarded connection error'));
    // Hold incoming bytes until the channel is open.
    socket.pause();
    // The client matches the channel to its forward by the address and port it asked for.
    this.client.forwardOut(bindAddr, boundPort, socket.remoteAddress ?? '127.0.0.1', socket.remotePort ?? 0, (err, channel) => {
      if (err) {
        this.logger.warn({ err: err.message, port: boundPort }, 'ssh forwarded-tcpip open refused by the client');
        socket.destroy();
        return;
      }
      if (socket.destroyed) {
        channel.close();
        return;
      }
      this.splice(channel, socket, `${bindAddr}:${boundPort}`);
      socket.resume();
    });
  }

  /** Pipes a channel and a socket both ways; either one closing takes the other down. */
  private splice(channel: Duplex & { close(): void }, socket: Socket, label: string): void {
    channel.on('error', (err: Error) => this.logger.warn({ err: err.message, forward: label }, 'ssh forwarding channel error'));
    socket.pipe(channel);
    channel.pipe(socket);
    socket.once('close', () => channel.close());
    channel.once('close', () => socket.destroy());
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }
}

function listenerKey(bindAddr: string, port: number): string {
  return `${bindAddr}\0${port}`;
}
