import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import type { AuthContext, ClientInfo, Connection } from 'ssh2';
import { generateEd25519KeyPair } from '../../lib/ssh-key-pair.js';
import type { AgentLogger } from '../agent-logger.js';
import { AgentForwarding } from './agent-forwarding.js';
import { PortForwarding } from './port-forwarding.js';
import { handleSshSession, type SshSessionKind } from './ssh-session.js';

const { Server, utils } = ssh2;

/** How the agent's SSH server runs sessions. */
export interface AgentSshServerOptions {
  /** Working directory of sessions (the agent directory). */
  readonly directory: string;
  /** Environment of every session (already includes COVE_* variables; no agent token). */
  readonly env: Readonly<Record<string, string>>;
  readonly logger: AgentLogger;
  /**
   * Host key in OpenSSH PEM; default: a fresh ed25519 key made at start. Not with ssh2's
   * `utils.generateKeyPairSync`: it drops the leading zero bytes of the public key, so about one key
   * in 256 is one ssh2 itself then refuses ("Malformed OpenSSH private key"), and that agent could
   * never serve SSH.
   */
  readonly hostKey?: string;
}

/** The agent's SSH server: it never listens itself, the relay hands it one stream per connection. */
export interface AgentSshServer {
  /** Serves one SSH connection over the stream until either side closes it; `exited` hears each session's exit status. */
  accept(stream: Duplex, exited?: (exitStatus: number) => void): void;
  /** Open SSH sessions (shell/exec/subsystem channels) right now, by kind: for the agent's stats. */
  readonly sessionCounts: Readonly<Record<SshSessionKind, number>>;
  /** Ends every connection and session. */
  close(): void;
}

/** Methods we offer after a refusal; only hostbased (which needs a host key we would not check) is refused. */
const AUTH_METHODS: ('none' | 'password' | 'publickey' | 'keyboard-interactive')[] = [
  'none',
  'password',
  'publickey',
  'keyboard-interactive',
];

/**
 * Creates the SSH server of the workspace agent. The daemon has already decided that the user may SSH
 * into this workspace before any byte reaches {@link AgentSshServer.accept}, so authentication here
 * accepts whatever the client offers first: plain `ssh` logs in with no prompt.
 *
 * ssh2's `injectSocket` works with any `Duplex`, not only a `net.Socket`: the server side only reads,
 * writes, pauses and ends the stream, reads `remoteAddress` for information, and calls `setNoDelay`
 * only when it exists. What a plain duplex lacks is the half-close behaviour of a socket, so
 * {@link AgentSshServer.accept} ends our side when the peer ends theirs; otherwise a relay that only
 * ends its readable side would leave the connection, and its sessions, open for ever.
 */
export function createAgentSshServer(options: AgentSshServerOptions): AgentSshServer {
  const { logger } = options;
  const hostKey = options.hostKey ?? generateEd25519KeyPair().privateKey;
  const streams = new Set<Duplex>();
  const exitListeners = new WeakMap<Duplex, (exitStatus: number) => void>();
  const connections = new Set<{ readonly client: Connection; readonly end: () => void }>();
  const sessions: Record<SshSessionKind, number> = { ssh: 0, vscode: 0, jetbrains: 0 };
  let closed = false;

  const server = new Server({ hostKeys: [hostKey], ident: 'Cove' }, (client, info) => serveConnection(client, info));
  // The internal net.Server never listens, but an unhandled 'error' event would still be fatal.
  server.on('error', (err: Error) => logger.warn({ err: err.message }, 'ssh server error'));

  const serveConnection = (client: Connection, info: ClientInfo): void => {
    // ssh2 keeps the injected stream as the connection's socket: how a connection finds who hears its exits.
    const exited = exitListeners.get((client as unknown as { _sock?: Duplex })._sock as Duplex);
    const forwarding = new PortForwarding(client, logger);
    const agentForwarding = new AgentForwarding(client, logger);
    const stops = new Set<() => void>();
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      connections.delete(entry);
      for (const stop of [...stops]) stop();
      stops.clear();
      forwarding.close();
      agentForwarding.close();
    };
    const entry = { client, end };
    connections.add(entry);
    if (closed) {
      client.end();
      end();
      return;
    }

    /** Counts a session until released; `stop` ends it if the connection goes first. */
    const started = (kind: SshSessionKind, stop: () => void): (() => void) => {
      sessions[kind] += 1;
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        sessions[kind] -= 1;
        stops.delete(teardown);
      };
      const teardown = (): void => {
        try {
          stop();
        } catch (err) {
          logger.warn({ err: errorMessage(err) }, 'ssh session stop failed');
        }
        release();
      };
      stops.add(teardown);
      return release;
    };

    // A relay connection has no meaningful peer address; tools still look for these to know they run
    // under SSH (prompts, editors), so give them the shape sshd does.
    const ip = info.ip || '127.0.0.1';
    const port = info.port || 0;
    const env: Record<string, string> = { ...options.env, SSH_CLIENT: `${ip} ${port} 22`, SSH_CONNECTION: `${ip} ${port} 127.0.0.1 22` };

    client.on('error', (err: Error & { level?: string }) => logger.warn({ err: err.message, level: err.level }, 'ssh connection error'));
    client.on('authentication', (context) => authenticate(context, logger));
    client.on('ready', () => {
      client.on('session', (accept) => {
        const session = accept();
        if (!session) return;
        handleSshSession(session, {
          directory: options.directory,
          env,
          logger,
          started,
          forwardAgent: () => agentForwarding.socketPath(),
          exited,
        });
      });
      client.on('tcpip', (accept, reject, tcpInfo) => forwarding.openDirect(accept, reject, tcpInfo));
      client.on('request', (accept, reject, name, bindInfo) => forwarding.request(accept, reject, name, bindInfo));
    });
    client.once('end', end);
    client.once('close', end);
  };

  return {
    accept(stream, exited) {
      if (closed) {
        stream.destroy();
        return;
      }
      streams.add(stream);
      if (exited) exitListeners.set(stream, exited);
      stream.once('close', () => streams.delete(stream));
      // ssh2 reports stream errors through the connection; this only covers the moments before it listens.
      stream.on('error', () => undefined);
      stream.once('end', () => {
        if (!stream.writableEnded) stream.end();
      });
      try {
        server.injectSocket(stream as Socket);
      } catch (err) {
        logger.warn({ err: errorMessage(err) }, 'ssh connection rejected');
        stream.destroy();
      }
    },
    get sessionCounts() {
      return { ...sessions };
    },
    close() {
      closed = true;
      for (const { client, end } of [...connections]) {
        try {
          client.end();
        } catch (err) {
          logger.warn({ err: errorMessage(err) }, 'ssh connection end failed');
        }
        end();
      }
      for (const stream of [...streams]) {
        // Let the disconnect message go out, then make sure the stream is gone even if the peer stalls.
        stream.once('finish', () => stream.destroy());
        if (!stream.writableEnded) stream.end();
        setTimeout(() => stream.destroy(), 1000).unref();
      }
    },
  };
}

/**
 * Accepts every method a client may try first, as the relay already authorized the user. A public
 * key is still held to its signature, so a client that offers one goes through the normal flow:
 * the unsigned query gets "key acceptable", the signed request must verify.
 */
function authenticate(context: AuthContext, logger: AgentLogger): void {
  switch (context.method) {
    case 'none':
    case 'password':
    case 'keyboard-interactive':
      context.accept();
      return;
    case 'publickey': {
      if (!context.signature || !context.blob) {
        context.accept();
        return;
      }
      const key = utils.parseKey(context.key.data);
      const parsed = Array.isArray(key) ? key[0] : key;
      if (!parsed || parsed instanceof Error || parsed.verify(context.blob, context.signature, context.hashAlgo) !== true) {
        logger.warn({ algorithm: context.key.algo }, 'ssh public key signature did not verify');
        context.reject(AUTH_METHODS);
        return;
      }
      context.accept();
      return;
    }
    default:
      context.reject(AUTH_METHODS);
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
