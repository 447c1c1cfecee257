import type { IPty } from 'node-pty';
import type { RawData, WebSocket } from 'ws';
import type { RelayTarget } from '../../sdk/wire/relay-protocol.js';
import type { AgentLogger } from '../agent-logger.js';
import { loginShell } from '../login-shell.js';
import { closeStream, sendReady } from '../relay/relay-stream.js';
import { JsonObjectSplitter } from './json-object-splitter.js';
import { ReplayBuffer } from './replay-buffer.js';

type PtyTarget = Extract<RelayTarget, { kind: 'pty' }>;

/** What every terminal session shares. */
export interface ReconnectingPtysOptions {
  readonly directory: string;
  readonly env: Readonly<Record<string, string>>;
  readonly logger: AgentLogger;
  /** A session with nobody attached ends after this long (5 minutes, as in the reference). */
  readonly idleTimeoutMs?: number;
  /** Output kept for replay on attach (64 KiB, as in the reference). */
  readonly replayBytes?: number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_REPLAY_BYTES = 64 * 1024;
/** The reference's size when the client gives none. */
const DEFAULT_SIZE = 80;

interface Session {
  readonly pty: IPty;
  readonly replay: ReplayBuffer;
  readonly attached: Set<WebSocket>;
  idleTimer: NodeJS.Timeout | undefined;
}

/**
 * The agent's reconnecting terminals, keyed by the client's reconnect id. A new id starts a
 * process in a PTY; the same id attaches to it again, replaying recent output first. Several
 * clients may attach at once: all see the output and any may type or resize. A session nobody
 * is attached to ends after the idle timeout; the process exiting ends the session.
 */
export class ReconnectingPtys {
  readonly #options: ReconnectingPtysOptions;
  readonly #sessions = new Map<string, Session>();
  #closed = false;

  constructor(options: ReconnectingPtysOptions) {
    this.#options = options;
  }

  /** Clients attached right now, for the agent's stats. */
  get attachments(): number {
    let count = 0;
    for (const session of this.#sessions.values()) count += session.attached.size;
    return count;
  }

  /** Attaches a relay stream to the session `target.reconnect`, starting it if it is new. */
  async attach(target: PtyTarget, socket: WebSocket): Promise<void> {
    if (this.#closed) {
      closeStream(socket, 1001, 'the agent is shutting down');
      return;
    }
    let session = this.#sessions.get(target.reconnect);
    if (!session) {
      try {
        session = await this.#start(target);
      } catch (error) {
        this.#options.logger.warn({ err: error, command: target.command }, 'could not start a terminal');
        closeStream(socket, 4502, `could not start the terminal: ${(error as Error).message}`);
        return;
      }
    }
    this.#join(session, socket);
  }

  /** Ends every session. */
  close(): void {
    this.#closed = true;
    for (const [id, session] of this.#sessions) this.#end(id, session, 'the agent is shutting down');
  }

  async #start(target: PtyTarget): Promise<Session> {
    const { spawn } = await import('node-pty');
    const shell = loginShell(this.#options.env);
    const [file, args] = commandLine(target, shell);
    const pty = spawn(file, args, {
      name: 'xterm-256color',
      cols: target.width || DEFAULT_SIZE,
      rows: target.height || DEFAULT_SIZE,
      cwd: this.#options.directory,
      env: { ...this.#options.env, TERM: 'xterm-256color' },
    });
    const session: Session = {
      pty,
      replay: new ReplayBuffer(this.#options.replayBytes ?? DEFAULT_REPLAY_BYTES),
      attached: new Set(),
      idleTimer: undefined,
    };
    this.#sessions.set(target.reconnect, session);
    pty.onData((text) => {
      const output = Buffer.from(text, 'utf8');
      session.replay.push(output);
      for (const socket of session.attached) if (socket.readyState === socket.OPEN) socket.send(output, { binary: true });
    });
    pty.onExit(({ exitCode }) => {
      if (this.#sessions.get(target.reconnect) === session) this.#sessions.delete(target.reconnect);
      clearTimeout(session.idleTimer);
      for (const socket of session.attached) socket.close(1000, `the process exited with code ${exitCode}`);
      session.attached.clear();
    });
    return session;
  }

  #join(session: Session, socket: WebSocket): void {
    clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
    session.attached.add(socket);
    const input = new JsonObjectSplitter();
    socket.on('message', (data: RawData) => {
      for (const value of input.push(rawText(data))) this.#input(session, value);
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      session.attached.delete(socket);
      if (session.attached.size > 0 || !this.#sessionIsLive(session)) return;
      session.idleTimer = setTimeout(() => {
        for (const [id, candidate] of this.#sessions) if (candidate === session) this.#end(id, session, 'idle');
      }, this.#options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
      session.idleTimer.unref();
    });
    sendReady(socket);
    const replay = session.replay.contents();
    if (replay.length > 0) socket.send(replay, { binary: true });
    socket.resume();
  }

  /** One input object: `data` goes to the terminal; a resize needs both sizes non-zero. */
  #input(session: Session, value: unknown): void {
    if (typeof value !== 'object' || value === null) return;
    const { data, width, height } = value as { data?: unknown; width?: unknown; height?: unknown };
    if (typeof data === 'string' && data !== '') session.pty.write(data);
    if (isSize(width) && isSize(height)) session.pty.resize(width, height);
  }

  #sessionIsLive(session: Session): boolean {
    for (const candidate of this.#sessions.values()) if (candidate === session) return true;
    return false;
  }

  #end(id: string, session: Session, why: string): void {
    this.#sessions.delete(id);
    clearTimeout(session.idleTimer);
    for (const socket of session.attached) socket.close(1001, why);
    session.attached.clear();
    try {
      session.pty.kill('SIGHUP');
    } catch {
      // Already gone.
    }
  }
}

/** The process to run: the login shell, the shell running `command`, or either inside a container. */
function commandLine(target: PtyTarget, shell: string): [string, string[]] {
  if (target.container !== '') {
    const user = target.container_user !== '' ? ['--user', target.container_user] : [];
    const inner = target.command !== '' ? ['sh', '-c', target.command] : ['sh', '-l'];
    return ['docker', ['exec', '--interactive', '--tty', ...user, target.container, ...inner]];
  }
  return target.command !== '' ? [shell, ['-c', target.command]] : [shell, ['-l']];
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 65535;
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}
