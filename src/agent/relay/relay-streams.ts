import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { joinStreams } from '../../lib/join-streams.js';
import type { RelayTarget } from '../../sdk/wire/relay-protocol.js';
import { RelayCloseCode } from '../../sdk/wire/relay-protocol.js';
import type { AgentLogger } from '../agent-logger.js';
import type { ReconnectingPtys } from '../pty/reconnecting-ptys.js';
import { closeStream, dialRelayStream, networkSocketOf, sendReady } from './relay-stream.js';
import { serveSpeedtest } from './speedtest-endpoint.js';
import type { TrafficMeter } from './traffic-meter.js';

/** Accepts SSH connections over a stream: the agent's SSH server. */
export interface SshAcceptor {
  /** Resolves once connections can be accepted; rejects with the reason the server cannot start. */
  start(): Promise<void>;
  /** Serves one connection; only after `start` resolved. `exited` hears each session's exit status. */
  accept(stream: Duplex, exited?: (exitStatus: number) => void): void;
}

/** What the agent's relay streams reach. */
export interface RelayStreamsOptions {
  readonly url: string;
  readonly token: string;
  readonly logger: AgentLogger;
  readonly ptys: ReconnectingPtys;
  readonly ssh: SshAcceptor;
  readonly meter: TrafficMeter;
  /** Tells the daemon a session on a stream exited, for its connection log. */
  readonly reportExit?: (streamId: string, exitStatus: number) => void;
}

/** How long connecting to a port inside the workspace may take. */
const TCP_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Opens the streams the daemon asks for: it connects the target first (so a port nothing listens
 * on, or an SSH server that cannot start, is refused with the reason), dials the daemon back with
 * the stream id, says `ready`, and joins the two.
 */
export class RelayStreams {
  readonly #options: RelayStreamsOptions;
  readonly #open = new Set<WebSocket>();

  constructor(options: RelayStreamsOptions) {
    this.#options = options;
  }

  /** Opens one stream; failures are told to the daemon (and so the client) and logged, never thrown. */
  open(streamId: string, target: RelayTarget): void {
    void this.#connect(streamId, target).catch((error: unknown) =>
      this.#options.logger.warn({ err: error, stream: streamId, target: target.kind }, 'could not open a relay stream'),
    );
  }

  /** Closes every open stream. */
  close(): void {
    for (const socket of this.#open) closeStream(socket, 1001, 'the agent is shutting down');
  }

  async #connect(streamId: string, target: RelayTarget): Promise<void> {
    if (target.kind === 'tcp') {
      let tcp: Socket;
      try {
        tcp = await connectLocal(target.port);
      } catch (error) {
        const socket = await this.#dial(streamId);
        closeStream(
          socket,
          RelayCloseCode.targetUnreachable,
          `nothing accepts connections on port ${target.port} in the workspace (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        );
        return;
      }
      const socket = await this.#dial(streamId).catch((error: unknown) => {
        tcp.destroy();
        throw error;
      });
      sendReady(socket);
      joinTcp(socket, tcp);
      return;
    }
    if (target.kind === 'udp') {
      // UDP has no connection to refuse: the stream is ready once the socket is bound.
      const udp = await connectUdp(target.port);
      const socket = await this.#dial(streamId).catch((error: unknown) => {
        udp.close();
        throw error;
      });
      sendReady(socket);
      joinUdp(socket, udp);
      return;
    }
    if (target.kind === 'ssh') {
      try {
        await this.#options.ssh.start();
      } catch (error) {
        this.#options.logger.error({ err: error, stream: streamId }, 'could not start the SSH server');
        const socket = await this.#dial(streamId);
        closeStream(socket, RelayCloseCode.targetUnreachable, `the SSH server of the agent could not start (${(error as Error).message})`);
        return;
      }
      const socket = await this.#dial(streamId);
      sendReady(socket);
      this.#options.ssh.accept(await asDuplex(socket), (exitStatus) => this.#options.reportExit?.(streamId, exitStatus));
      return;
    }
    const socket = await this.#dial(streamId);
    switch (target.kind) {
      case 'echo':
        sendReady(socket);
        socket.on('message', (data, isBinary) => socket.send(data as Buffer, { binary: isBinary }));
        socket.resume();
        return;
      case 'speedtest':
        sendReady(socket);
        serveSpeedtest(socket);
        return;
      case 'pty':
        await this.#options.ptys.attach(target, socket);
        return;
    }
  }

  async #dial(streamId: string): Promise<WebSocket> {
    const socket = await dialRelayStream(this.#options.url, this.#options.token, streamId);
    this.#open.add(socket);
    socket.once('close', () => this.#open.delete(socket));
    socket.on('error', (error) => this.#options.logger.warn({ err: error, stream: streamId }, 'relay stream error'));
    this.#options.meter.track(networkSocketOf(socket));
    return socket;
  }
}

/** Connects to a port on the workspace's loopback interface, IPv4 first, then IPv6. */
async function connectLocal(port: number): Promise<Socket> {
  try {
    return await connectTo('127.0.0.1', port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw error;
    return connectTo('::1', port).catch(() => Promise.reject(error));
  }
}

function connectTo(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: TCP_CONNECT_TIMEOUT_MS });
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
    });
    socket.once('error', reject);
  });
}

async function asDuplex(socket: WebSocket): Promise<Duplex> {
  const { createWebSocketStream } = await import('ws');
  const stream = createWebSocketStream(socket);
  socket.resume();
  return stream;
}

/** A UDP socket that sends to, and hears only from, a port on the workspace's loopback interface. */
function connectUdp(port: number): Promise<UdpSocket> {
  return new Promise((resolve, reject) => {
    const udp = createSocket('udp4');
    udp.once('error', reject);
    udp.connect(port, '127.0.0.1', () => {
      udp.off('error', reject);
      resolve(udp);
    });
  });
}

/**
 * Carries datagrams between a relay stream and a UDP socket: each binary frame is one datagram.
 * A datagram nobody receives (ICMP port unreachable) is dropped as UDP drops it; closing either
 * side closes the other.
 */
function joinUdp(socket: WebSocket, udp: UdpSocket): void {
  udp.on('message', (datagram) => {
    if (socket.readyState === socket.OPEN) socket.send(datagram, { binary: true });
  });
  udp.on('error', () => undefined);
  socket.on('message', (data, isBinary) => {
    if (isBinary) udp.send(data as Buffer);
  });
  socket.once('close', () => udp.close());
  socket.resume();
}

/** Pipes a relay stream and a TCP connection both ways; either ending ends both. */
function joinTcp(socket: WebSocket, tcp: Socket): void {
  void import('ws').then(({ createWebSocketStream }) => {
    const stream = createWebSocketStream(socket);
    socket.resume();
    tcp.setNoDelay(true);
    joinStreams(stream, tcp);
  });
}
