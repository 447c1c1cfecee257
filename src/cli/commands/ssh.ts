import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Client, ClientChannel } from 'ssh2';
import { openAgentStream } from '../../sdk/agent-streams.js';
import { DeploymentUnreachableError } from '../../sdk/http-transport.js';
import { AgentUnreachableError } from '../agent-unreachable-error.js';
import { CliError } from '../cli-error.js';
import { ExitStatusError } from '../exit-status.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { startStoppedWorkspace } from '../start-stopped-workspace.js';
import { resolveWorkspaceAgent, type AgentWait } from '../workspace-agent-ref.js';
import { listOption, parsePairs, repeatableOptions, stringOption } from './templates-common.js';

/** `cove ssh`: a shell or a command in a workspace, over SSH through the relay. */
export const sshCommand: CommandSpec = {
  name: 'ssh',
  summary: 'Open a shell or run a command in a workspace over SSH',
  description:
    'Connects to the workspace agent through the deployment and starts an SSH session: an ' +
    'interactive shell, or COMMAND with its exit code. A stopped workspace is started first ' +
    '(unless --disable-autostart). With --stdio it only carries the SSH connection over standard ' +
    'input and output, for OpenSSH\'s ProxyCommand ("cove config-ssh" writes that).',
  arguments: [
    { name: 'workspace', description: 'WORKSPACE, OWNER/WORKSPACE, or either followed by .AGENT', required: true },
    { name: 'command', description: 'Command to run instead of a shell (after --)', variadic: true },
  ],
  options: [
    {
      flags: '--stdio',
      env: 'COVE_SSH_STDIO',
      description: 'Carry an SSH connection over stdin/stdout (for OpenSSH ProxyCommand)',
      default: false,
    },
    {
      flags: '--ssh-host-prefix <prefix>',
      env: 'COVE_SSH_SSH_HOST_PREFIX',
      description: 'Strip this prefix from the workspace name (what ProxyCommand passes as %h)',
    },
    {
      flags: '--wait <when>',
      env: 'COVE_SSH_WAIT',
      description:
        'Wait for start scripts: yes (all of them), no (only for the agent to connect), auto (those the template marks as blocking login)',
    },
    { flags: '--no-wait', env: 'COVE_SSH_NO_WAIT', description: 'Same as --wait=no: enter as soon as the agent is connected' },
    {
      flags: '--disable-autostart',
      env: 'COVE_SSH_DISABLE_AUTOSTART',
      description: 'Fail on a stopped workspace instead of starting it',
      default: false,
    },
    {
      flags: '-A, --forward-agent',
      env: 'COVE_SSH_FORWARD_AGENT',
      description: 'Forward your SSH agent ($SSH_AUTH_SOCK) into the session',
      default: false,
    },
    {
      flags: '--identity-agent <socket>',
      env: 'COVE_SSH_IDENTITY_AGENT',
      description: 'The SSH agent socket to forward (default: $SSH_AUTH_SOCK)',
    },
  ],
  configure: repeatableOptions([
    {
      flags: '-R, --remote-forward <forward>',
      description: 'Forward a port in the workspace to here: [BIND:]REMOTE_PORT:HOST:PORT, e.g. 8080:localhost:3000 (repeatable)',
      env: 'COVE_SSH_REMOTE_FORWARD',
    },
    { flags: '-e, --env <KEY=VALUE>', description: 'Set an environment variable in the session (repeatable)', env: 'COVE_SSH_ENV' },
  ]),
  examples: [
    'cove ssh dev',
    'cove ssh dev -- echo hello',
    'cove ssh alice/dev.main -- uname -a',
    'cove ssh -A -e EDITOR=vim -R 8080:localhost:3000 dev',
    'ssh -o ProxyCommand="cove ssh --stdio %h" dev',
  ],
  async run(context, [workspaceText = '', ...command], options) {
    const prefix = stringOption(options, 'sshHostPrefix');
    const target = prefix && workspaceText.startsWith(prefix) ? workspaceText.slice(prefix.length) : workspaceText;
    const session = sessionOptions(context, options);
    if (
      options['stdio'] === true &&
      (session.agentSocket !== undefined || session.remoteForwards.length > 0 || Object.keys(session.env).length > 0)
    ) {
      throw new CliError('--forward-agent, --remote-forward and --env apply to the session cove opens, not to --stdio.', {
        hint: 'Give them to ssh instead: ssh -A, ssh -R, and SetEnv in the SSH config.',
      });
    }
    const wait = waitFor(options['wait']);
    const client = await context.client();
    const { agent } = await resolveWorkspaceAgent(client, target, {
      io: context.io,
      wait,
      ...(options['disableAutostart'] === true
        ? {}
        : { start: (workspace, label) => startStoppedWorkspace(context, client, workspace, label) }),
    }).catch(agentFailed);
    const { stream } = await openAgentStream(client, agent.id, { service: 'ssh' }).catch(connectionFailed);
    if (options['stdio'] === true) return carryStdio(context, stream);
    return runSession(context, stream, command, session).catch(connectionFailed);
  },
};

/** OpenSSH's status when the connection fails, as opposed to the remote command's own. */
const CONNECTION_FAILED = 255;

/** Any failure once the agent is found is the connection's: the relay, the SSH handshake, the session. */
function connectionFailed(error: unknown): never {
  throw new ExitStatusError(error, CONNECTION_FAILED);
}

/**
 * While finding the agent, only an agent that is gone or a deployment that cannot be reached is
 * the connection's; a mistake in what was typed (an unknown workspace or agent) stays status 1.
 */
function agentFailed(error: unknown): never {
  if (error instanceof AgentUnreachableError || error instanceof DeploymentUnreachableError) connectionFailed(error);
  throw error;
}

/** What the user asked of the SSH session besides the command. */
interface SessionOptions {
  readonly agentSocket: string | undefined;
  readonly remoteForwards: readonly RemoteForward[];
  readonly env: Readonly<Record<string, string>>;
}

/** `-R [BIND:]REMOTE_PORT:HOST:PORT`: a port the agent listens on, carried to HOST:PORT from here. */
interface RemoteForward {
  readonly bindAddress: string;
  readonly remotePort: number;
  readonly host: string;
  readonly port: number;
}

function sessionOptions(context: CommandContext, options: Readonly<Record<string, unknown>>): SessionOptions {
  let agentSocket: string | undefined;
  if (options['forwardAgent'] === true) {
    agentSocket = stringOption(options, 'identityAgent') ?? context.io.env['SSH_AUTH_SOCK'];
    if (!agentSocket)
      throw new CliError('There is no SSH agent to forward: SSH_AUTH_SOCK is not set.', {
        hint: 'Start one with "eval $(ssh-agent)" and add keys with ssh-add, or name its socket with --identity-agent.',
      });
  }
  return {
    agentSocket,
    remoteForwards: listOption(options, 'remoteForward').map(parseRemoteForward),
    env: parsePairs(listOption(options, 'env'), '--env'),
  };
}

function parseRemoteForward(text: string): RemoteForward {
  // A bracketed IPv6 host stays one part: [::1]
  const parts = text.match(/\[[^\]]*\]|[^:]+/g) ?? [];
  const unbracket = (host: string) => host.replace(/^\[(.*)\]$/, '$1');
  const port = (value: string | undefined, min: number) =>
    value !== undefined && /^\d+$/.test(value) && Number(value) >= min && Number(value) <= 65535 ? Number(value) : undefined;
  const [bindAddress, remote, host, local] = parts.length === 4 ? parts : ['127.0.0.1', ...parts];
  const remotePort = port(remote, 0);
  const localPort = port(local, 1);
  if (parts.length < 3 || parts.length > 4 || remotePort === undefined || localPort === undefined || !host) {
    throw new CliError(`--remote-forward "${text}" is not a forward.`, {
      hint: 'Write [BIND:]REMOTE_PORT:HOST:PORT, e.g. -R 8080:localhost:3000 (port 8080 in the workspace reaches localhost:3000 here).',
    });
  }
  return { bindAddress: unbracket(bindAddress ?? '127.0.0.1'), remotePort, host: unbracket(host), port: localPort };
}

/** `--wait yes|no|auto` and `--no-wait` (false) as what the agent lookup waits for. */
function waitFor(value: unknown): AgentWait {
  if (value === undefined || value === true || value === 'auto') return 'blocking';
  if (value === false || value === 'no') return 'connect';
  if (value === 'yes') return 'all';
  throw new CliError(`--wait takes yes, no or auto, not "${String(value)}".`);
}

/** Joins stdin/stdout to the stream until either ends; OpenSSH speaks SSH over it. */
function carryStdio(context: CommandContext, stream: Duplex): Promise<number> {
  return new Promise((resolve) => {
    context.io.stdin.pipe(stream);
    stream.pipe(context.io.stdout, { end: false });
    stream.on('close', () => resolve(0));
    stream.on('error', () => resolve(1));
    context.io.stdin.on('end', () => stream.end());
  });
}

/** An SSH session over the stream: a shell with a PTY on a terminal, else the command with pipes. */
async function runSession(context: CommandContext, stream: Duplex, command: readonly string[], session: SessionOptions): Promise<number> {
  const { Client } = await import('ssh2');
  const connection = new Client();
  const { io } = context;
  const interactive = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const size = terminalSize(io.stdout);
  // Forwards whose remote port was 0, by the port the agent chose.
  const boundForwards = new Map<number, RemoteForward>();
  return new Promise((resolve, reject) => {
    connection.on('error', (error) => reject(new CliError(`The SSH connection failed: ${error.message}`)));
    connection.on('tcp connection', (details, accept, reject) => {
      const forward = boundForwards.get(details.destPort);
      if (!forward) {
        reject();
        return;
      }
      const local = connect(forward.port, forward.host);
      local.once('connect', () => {
        const channel = accept();
        local.pipe(channel).pipe(local);
        channel.on('close', () => local.destroy());
      });
      local.once('error', (error) => {
        io.stderr.write(
          `Could not reach ${forward.host}:${forward.port} for a connection to port ${details.destPort} in the workspace: ${error.message}\n`,
        );
        reject();
      });
    });
    connection.on('ready', () => {
      const started = (error: Error | undefined, channel: ClientChannel): void => {
        if (error) {
          connection.end();
          reject(new CliError(`Could not start the session: ${error.message}`));
          return;
        }
        // A session that ends without the remote side saying how (the connection dropped) is OpenSSH's 255.
        let exitCode = CONNECTION_FAILED;
        channel.on('exit', (code: number | null, signal?: string) => {
          exitCode = code ?? (signal ? signalStatus(signal) : CONNECTION_FAILED);
        });
        channel.pipe(io.stdout, { end: false });
        channel.stderr.pipe(io.stderr, { end: false });
        const restore = interactive ? rawMode(io, channel) : undefined;
        io.stdin.pipe(channel);
        channel.on('close', () => {
          restore?.();
          io.stdin.unpipe(channel);
          connection.end();
          resolve(exitCode);
        });
      };
      const pty = interactive ? { term: context.io.env['TERM'] ?? 'xterm-256color', cols: size.cols, rows: size.rows } : undefined;
      const env = { ...session.env };
      const open = (): void => {
        if (command.length > 0) connection.exec(command.join(' '), pty ? { pty, env } : { env }, started);
        else connection.shell(pty ?? false, { env }, started);
      };
      listenRemote(connection, session.remoteForwards, boundForwards).then(open, (error: unknown) => {
        connection.end();
        reject(error);
      });
    });
    // The daemon authorized this user for this workspace, and the agent's host key is made fresh at
    // each start, so there is no key to pin.
    connection.connect({
      sock: stream,
      username: 'cove',
      hostVerifier: () => true,
      readyTimeout: 30_000,
      keepaliveInterval: 15_000,
      ...(session.agentSocket !== undefined ? { agent: session.agentSocket, agentForward: true } : {}),
    });
  });
}

/** Asks the agent to listen for each `-R` forward before the session starts; a refusal is an error. */
async function listenRemote(connection: Client, forwards: readonly RemoteForward[], bound: Map<number, RemoteForward>): Promise<void> {
  for (const forward of forwards) {
    await new Promise<void>((resolve, reject) => {
      connection.forwardIn(forward.bindAddress, forward.remotePort, (error, port) => {
        if (error) {
          reject(
            new CliError(`The workspace could not listen on ${forward.bindAddress}:${forward.remotePort}: ${error.message}.`, {
              hint: 'Choose another port for --remote-forward.',
            }),
          );
          return;
        }
        bound.set(port, forward);
        resolve();
      });
    });
  }
}

/** Puts the terminal in raw mode and follows its size; returns how to undo it. */
function rawMode(io: CommandContext['io'], channel: ClientChannel): () => void {
  io.stdin.setRawMode?.(true);
  const stdout = io.stdout as NodeJS.WriteStream;
  const resize = (): void => {
    const size = terminalSize(stdout);
    channel.setWindow(size.rows, size.cols, 0, 0);
  };
  stdout.on?.('resize', resize);
  return () => {
    io.stdin.setRawMode?.(false);
    stdout.off?.('resize', resize);
    (io.stdin as NodeJS.ReadStream).pause?.();
  };
}

function terminalSize(stdout: NodeJS.WritableStream): { cols: number; rows: number } {
  const tty = stdout as Partial<NodeJS.WriteStream>;
  return { cols: tty.columns ?? 80, rows: tty.rows ?? 24 };
}

/**
 * The signals SSH names (RFC 4254 section 6.10) by their numbers on Linux, where agents run; the
 * status of a process killed by signal N is 128+N, as a shell and OpenSSH report it.
 */
const SIGNALS: Readonly<Record<string, number>> = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  ILL: 4,
  ABRT: 6,
  FPE: 8,
  KILL: 9,
  USR1: 10,
  SEGV: 11,
  USR2: 12,
  PIPE: 13,
  ALRM: 14,
  TERM: 15,
};

/** 128+N for signal N, named with or without `SIG` (ssh2 adds it); an unknown name is the connection's 255. */
function signalStatus(name: string): number {
  const number = SIGNALS[name.replace(/^SIG/, '')];
  return number === undefined ? CONNECTION_FAILED : 128 + number;
}
