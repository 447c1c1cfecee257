import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { Connection } from 'ssh2';
import type { AgentLogger } from '../agent-logger.js';

/** ssh2's channel sizes (lib/Channel.js), which its own server-opened channels use. */
const CHANNEL_WINDOW = 2 * 1024 * 1024;
const CHANNEL_PACKET_SIZE = 32 * 1024;

/** The parts of ssh2's server connection that open a channel to the client; it has no public call for this channel type. */
interface ChannelOpener {
  readonly _chanMgr: { add(callback: ((error: Error | undefined, channel: Duplex) => void) & { type: string }): number };
  readonly _protocol: { openssh_authAgent(channel: number, window: number, packetSize: number): void };
}

/**
 * SSH agent forwarding for one SSH connection, as sshd does it: once a session asks with
 * `auth-agent-req@openssh.com`, a Unix socket in a private directory stands for the client's
 * agent (sessions get it as `SSH_AUTH_SOCK`), and each connection to it becomes an
 * `auth-agent@openssh.com` channel to the client, which joins it to its own agent.
 */
export class AgentForwarding {
  #socket: Promise<{ readonly path: string; readonly server: Server; readonly directory: string }> | undefined;

  constructor(
    private readonly client: Connection,
    private readonly logger: AgentLogger,
  ) {}

  /** The socket sessions use as `SSH_AUTH_SOCK`, made at the first request of the connection. */
  async socketPath(): Promise<string> {
    this.#socket ??= this.#listen();
    return (await this.#socket).path;
  }

  /** Stops listening and removes the socket; the connection is over. */
  close(): void {
    const socket = this.#socket;
    this.#socket = undefined;
    void socket?.then(
      ({ server, directory }) => {
        server.close();
        return rm(directory, { recursive: true, force: true });
      },
      () => undefined,
    );
  }

  async #listen(): Promise<{ readonly path: string; readonly server: Server; readonly directory: string }> {
    // mkdtemp makes the directory 0700: only the workspace user reaches the agent, as with sshd.
    const directory = await mkdtemp(join(tmpdir(), 'cove-ssh-agent-'));
    const path = join(directory, 'agent.sock');
    const server = createServer((local) => {
      local.pause();
      this.#openChannel((error, channel) => {
        if (error) {
          this.logger.warn({ err: error.message }, 'ssh agent forwarding refused by the client');
          local.destroy();
          return;
        }
        local.pipe(channel).pipe(local);
        local.resume();
        local.on('error', () => channel.destroy());
        channel.on('error', () => local.destroy());
        channel.on('close', () => local.destroy());
      });
    });
    server.on('error', (err) => this.logger.warn({ err: err.message }, 'ssh agent forwarding socket error'));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return { path, server, directory };
  }

  #openChannel(callback: (error: Error | undefined, channel: Duplex) => void): void {
    const opener = this.client as unknown as ChannelOpener;
    const local = opener._chanMgr.add(
      Object.assign((error: Error | undefined, channel: Duplex) => callback(error, channel), { type: 'auth-agent@openssh.com' }),
    );
    if (local === -1) {
      callback(new Error('no free channels'), undefined as unknown as Duplex);
      return;
    }
    opener._protocol.openssh_authAgent(local, CHANNEL_WINDOW, CHANNEL_PACKET_SIZE);
  }
}
