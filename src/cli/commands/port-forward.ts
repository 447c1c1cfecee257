import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { joinStreams } from '../../lib/join-streams.js';
import { AgentStreamError, openAgentStream } from '../../sdk/agent-streams.js';
import type { CoveClient } from '../../sdk/client.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import type { CliIo } from '../io.js';
import { printJson } from '../output.js';
import { parsePortMappings, type PortMapping } from '../port-mappings.js';
import { startStoppedWorkspace } from '../start-stopped-workspace.js';
import { resolveWorkspaceAgent } from '../workspace-agent-ref.js';
import { listOption, repeatableOptions } from './templates-common.js';

/** A UDP peer that sends nothing for this long has its relay stream closed; the next datagram opens another. */
const UDP_IDLE_MS = 5 * 60_000;

/** `cove port-forward`: local TCP and UDP ports that reach ports inside a workspace. */
export const portForwardCommand: CommandSpec = {
  name: 'port-forward',
  aliases: ['tunnel'],
  summary: 'Forward local TCP and UDP ports to ports inside a workspace',
  description:
    "Listens on each LOCAL port and carries every connection (TCP) or every sender's datagrams (UDP) " +
    "to REMOTE on the workspace's loopback interface, through the deployment. Mappings are " +
    '[BIND:]LOCAL[:REMOTE], comma-separated or repeated, with ranges such as 8000-8010 or ' +
    '8000-8010:9000-9010. A stopped workspace is started first (unless --disable-autostart), and the ' +
    'agent waited for. Runs until interrupted (Ctrl+C).',
  arguments: [{ name: 'workspace', description: 'WORKSPACE, OWNER/WORKSPACE, or either followed by .AGENT', required: true }],
  options: [
    {
      flags: '--disable-autostart',
      description: 'Fail on a stopped workspace instead of starting it',
      default: false,
      env: 'COVE_SSH_DISABLE_AUTOSTART',
    },
  ],
  configure: repeatableOptions([
    {
      flags: '-p, --tcp <mapping>',
      description: 'TCP ports: LOCAL:REMOTE, a range, or BIND:LOCAL:REMOTE (repeatable, comma-separated)',
      env: 'COVE_PORT_FORWARD_TCP',
    },
    {
      flags: '-u, --udp <mapping>',
      description: 'UDP ports, written as for --tcp (repeatable, comma-separated)',
      env: 'COVE_PORT_FORWARD_UDP',
    },
  ]),
  examples: [
    'cove port-forward dev --tcp 18080:8080',
    'cove port-forward dev -p 3000,127.0.0.1:5433:5432 -p 8000-8010:9000-9010',
    'cove port-forward dev --udp 5353:53',
  ],
  async run(context, [workspaceText = ''], options) {
    const mappings = [...parsePortMappings('tcp', listOption(options, 'tcp')), ...parsePortMappings('udp', listOption(options, 'udp'))];
    if (mappings.length === 0)
      throw new CliError('Nothing to forward.', { hint: 'Name ports with --tcp LOCAL:REMOTE (or -p), or --udp LOCAL:REMOTE.' });
    const client = await context.client();
    const { agent, label } = await resolveWorkspaceAgent(client, workspaceText, {
      io: context.io,
      ...(options['disableAutostart'] === true
        ? {}
        : { start: (workspace, name) => startStoppedWorkspace(context, client, workspace, name) }),
    });
    const listeners: Listener[] = [];
    try {
      for (const mapping of mappings) listeners.push(await listen(context, client, agent.id, mapping));
    } catch (error) {
      for (const listener of listeners) listener.close();
      throw error;
    }
    const bound = listeners.map(({ mapping, port }) => ({
      network: mapping.network,
      local: `${isIPv6(mapping.bindHost) ? `[${mapping.bindHost}]` : mapping.bindHost}:${port}`,
      remote_port: mapping.remotePort,
    }));
    // Listening for Ctrl+C before saying the ports are ready: a script that interrupts as soon as
    // it reads the line would otherwise kill the process before the handler exists.
    const interrupted = untilInterrupted(context.io);
    if (context.json) printJson(context.io, { workspace: label, agent: agent.name, forwards: bound });
    else
      for (const entry of bound)
        context.io.stderr.write(`Forwarding ${entry.network} ${entry.local} to port ${entry.remote_port} in workspace "${label}"\n`);
    await interrupted;
    for (const listener of listeners) listener.close();
    return 0;
  },
};

/** A local port being forwarded. */
interface Listener {
  readonly mapping: PortMapping;
  /** The port bound (the one asked for, or the one the system chose for 0). */
  readonly port: number;
  close(): void;
}

function listen(context: CommandContext, client: CoveClient, agentId: string, mapping: PortMapping): Promise<Listener> {
  return mapping.network === 'tcp' ? listenTcp(context, client, agentId, mapping) : listenUdp(context, client, agentId, mapping);
}

function cannotListen(mapping: PortMapping, error: NodeJS.ErrnoException): CliError {
  return new CliError(`Cannot listen on ${mapping.network} ${mapping.bindHost}:${mapping.localPort}: ${error.code ?? error.message}.`, {
    hint: 'Choose another local port.',
  });
}

async function listenTcp(context: CommandContext, client: CoveClient, agentId: string, mapping: PortMapping): Promise<Listener> {
  const server: Server = createServer((socket) => void carry(context, client, agentId, mapping, socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(cannotListen(mapping, error)));
    server.listen(mapping.localPort, mapping.bindHost, () => resolve());
  });
  return { mapping, port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/** One local connection: a relay stream to the remote port, joined both ways. */
async function carry(context: CommandContext, client: CoveClient, agentId: string, mapping: PortMapping, socket: Socket): Promise<void> {
  socket.pause();
  try {
    const { stream } = await openAgentStream(client, agentId, { port: mapping.remotePort });
    socket.setNoDelay(true);
    joinStreams(socket, stream);
  } catch (error) {
    context.io.stderr.write(`Could not reach port ${mapping.remotePort} in the workspace: ${reasonOf(error)}\n`);
    socket.destroy();
  }
}

/**
 * A local UDP port. Each sender (address and port) gets its own relay stream, opened at its first
 * datagram, so answers go back to whoever asked; datagrams sent while it opens wait for it.
 */
async function listenUdp(context: CommandContext, client: CoveClient, agentId: string, mapping: PortMapping): Promise<Listener> {
  const udp: UdpSocket = createSocket(isIPv6(mapping.bindHost) ? 'udp6' : 'udp4');
  await new Promise<void>((resolve, reject) => {
    udp.once('error', (error: NodeJS.ErrnoException) => reject(cannotListen(mapping, error)));
    udp.bind(mapping.localPort, mapping.bindHost, () => resolve());
  });
  udp.on('error', (error) => context.io.stderr.write(`UDP port ${mapping.localPort}: ${error.message}\n`));
  const peers = new Map<string, UdpPeer>();
  udp.on('message', (datagram, sender) => {
    const key = `${sender.address}:${sender.port}`;
    let peer = peers.get(key);
    if (!peer) {
      peer = new UdpPeer(sender, () => peers.delete(key));
      peers.set(key, peer);
      peer.open(context, client, agentId, mapping, udp);
    }
    peer.send(datagram);
  });
  return {
    mapping,
    port: udp.address().port,
    close: () => {
      for (const peer of peers.values()) peer.close();
      udp.close();
    },
  };
}

/** One sender's datagrams on their relay stream, and the answers back to it. */
class UdpPeer {
  #socket: WebSocket | undefined;
  #waiting: Buffer[] = [];
  #idle: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly sender: RemoteInfo,
    private readonly onClose: () => void,
  ) {}

  open(context: CommandContext, client: CoveClient, agentId: string, mapping: PortMapping, udp: UdpSocket): void {
    this.#touch();
    openAgentStream(client, agentId, { port: mapping.remotePort, network: 'udp' }).then(
      ({ socket }) => {
        if (this.#closed) {
          socket.close(1000);
          return;
        }
        this.#socket = socket;
        socket.on('message', (data, isBinary) => {
          if (!isBinary) return;
          this.#touch();
          udp.send(data as Buffer, this.sender.port, this.sender.address);
        });
        socket.on('error', () => undefined);
        socket.once('close', () => this.close());
        for (const datagram of this.#waiting) socket.send(datagram, { binary: true });
        this.#waiting = [];
      },
      (error: unknown) => {
        context.io.stderr.write(`Could not reach UDP port ${mapping.remotePort} in the workspace: ${reasonOf(error)}\n`);
        this.close();
      },
    );
  }

  send(datagram: Buffer): void {
    this.#touch();
    if (this.#socket) this.#socket.send(datagram, { binary: true });
    else this.#waiting.push(datagram);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#idle);
    this.#socket?.close(1000);
    this.onClose();
  }

  #touch(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.close(), UDP_IDLE_MS);
    this.#idle.unref();
  }
}

function reasonOf(error: unknown): string {
  return error instanceof AgentStreamError ? error.message : (error as Error).message;
}

/** Resolves at SIGINT or SIGTERM, or when the caller's interrupt signal (tests) aborts. */
function untilInterrupted(io: CliIo): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.interrupt?.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (io.interrupt?.aborted) stop();
    else io.interrupt?.addEventListener('abort', stop);
  });
}
