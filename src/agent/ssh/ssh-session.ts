import { statSync } from 'node:fs';
import type { ServerChannel, Session } from 'ssh2';
import type { AgentLogger } from '../agent-logger.js';
import { loginShell } from '../login-shell.js';
import { startSessionProcess, type PtyRequest, type SessionProcess } from './session-process.js';
import { serveSftp } from './sftp-handler.js';

/** What every session of one SSH connection shares. */
/** What a session is for, as the agent's stats count it. */
export type SshSessionKind = 'ssh' | 'vscode' | 'jetbrains';

/**
 * The variable an editor's SSH client sets (SetEnv/SendEnv) to say what the session is for, like
 * the reference's magic session type; plain SSH and SFTP sessions count as `ssh`.
 */
export const SESSION_TYPE_VARIABLE = 'COVE_SSH_SESSION_TYPE';

function sessionKind(env: Readonly<Record<string, string>>): SshSessionKind {
  const given = env[SESSION_TYPE_VARIABLE]?.toLowerCase();
  return given === 'vscode' || given === 'jetbrains' ? given : 'ssh';
}

export interface SshSessionContext {
  /** Working directory of the session's process and base of relative SFTP paths. */
  readonly directory: string;
  /** Base environment: the agent's session environment plus the connection's `SSH_*` facts. */
  readonly env: Readonly<Record<string, string>>;
  readonly logger: AgentLogger;
  /**
   * Records that a session of `kind` started (shell, exec or subsystem). `stop` ends it when the connection or
   * the server goes away; the returned function marks it over and may be called any number of times.
   */
  readonly started: (kind: SshSessionKind, stop: () => void) => () => void;
  /** The connection's forwarded agent socket, made on first use (`auth-agent-req@openssh.com`). */
  readonly forwardAgent: () => Promise<string>;
  /** Told the exit status of each shell or command the connection ran, for the connection log. */
  readonly exited?: ((exitStatus: number) => void) | undefined;
}

/**
 * Serves one accepted `session` channel: collects `env` and `pty-req`, then runs the shell, the exec
 * command or the SFTP subsystem that the client asks for (one per channel, as RFC 4254 allows).
 */
export function handleSshSession(session: Session, context: SshSessionContext): void {
  const { logger } = context;
  const requestedEnv: Record<string, string> = {};
  let pty: PtyRequest | undefined;
  let running: SessionProcess | undefined;
  // Set by `auth-agent-req@openssh.com`; OpenSSH sends it without waiting for an answer, so the
  // shell or command that follows waits for the socket.
  let agentSocket: Promise<string | undefined> | undefined;

  session.on('env', (accept, _reject, info) => {
    requestedEnv[info.key] = info.val;
    accept?.();
  });
  session.on('pty', (accept, _reject, info) => {
    pty = { term: info.term || 'xterm', cols: info.cols || 80, rows: info.rows || 24 };
    accept?.();
  });
  session.on('window-change', (accept, _reject, info) => {
    if (pty) pty = { ...pty, cols: info.cols, rows: info.rows };
    running?.resize(info.cols, info.rows);
    accept?.();
  });
  session.on('auth-agent', (accept) => {
    agentSocket = context.forwardAgent().catch((err: unknown) => {
      logger.warn({ err: (err as Error).message }, 'ssh agent forwarding unavailable');
      return undefined;
    });
    accept?.();
  });
  session.on('signal', (accept, reject, info) => {
    if (running?.signal(info.name)) accept?.();
    else reject?.();
  });

  // ssh2's accept returns nothing when the request was already answered (a second shell on the channel).
  const run = (accept: () => ServerChannel | undefined, command: string | undefined): void => {
    const channel = accept();
    if (!channel) return;
    if (agentSocket) void agentSocket.then((socket) => start(channel, command, socket));
    else start(channel, command, undefined);
  };

  const start = (channel: ServerChannel, command: string | undefined, agentSocketPath: string | undefined): void => {
    const env: Record<string, string> = { ...context.env, ...requestedEnv };
    if (agentSocketPath !== undefined) env['SSH_AUTH_SOCK'] = agentSocketPath;
    if (pty) env['TERM'] = pty.term;
    const shell = loginShell(context.env);
    const cwd = workingDirectory(context.directory, env);
    if (cwd !== context.directory) {
      channel.stderr.write(`Could not chdir to ${context.directory}: no such directory; using ${cwd}${pty ? '\r\n' : '\n'}`);
    }
    // The hang-up callback may run before the process exists, so it reads a slot filled just below.
    const slot: { child?: SessionProcess } = {};
    const release = context.started(sessionKind(requestedEnv), () => slot.child?.hangUp());
    const child = (slot.child = startSessionProcess(channel, {
      file: shell,
      // sshd starts the shell as a login shell and runs a command with `-c`, never as a login shell.
      args: command === undefined ? ['-l'] : ['-c', command],
      cwd,
      env,
      ...(pty ? { pty } : {}),
      logger,
      onEnd: (exitStatus) => {
        release();
        context.exited?.(exitStatus);
      },
    }));
    running = child;
    const closed = (): void => {
      child.hangUp();
      release();
    };
    channel.once('close', closed);
    session.once('close', closed);
  };

  session.on('shell', (accept) => run(accept, undefined));
  session.on('exec', (accept, _reject, info) => run(accept, info.command));
  session.on('sftp', (accept) => {
    const sftp = accept();
    if (!sftp) return;
    const release = context.started('ssh', () => sftp.end());
    serveSftp(sftp, { directory: context.directory, logger });
    sftp.once('close', release);
    sftp.once('end', release);
    session.once('close', release);
  });
}

/**
 * The agent directory, or, while it does not exist yet (a clone still running), `$HOME` and then `/`:
 * like sshd with a missing home, a session still starts and says where it is.
 */
function workingDirectory(directory: string, env: Readonly<Record<string, string>>): string {
  for (const candidate of [directory, env['HOME'], '/']) {
    if (candidate && isDirectory(candidate)) return candidate;
  }
  return directory;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
