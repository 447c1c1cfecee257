import type { Duplex } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { stringOption } from './templates-common.js';
import { resolveWorkspaceAgent } from '../workspace-agent-ref.js';
import { openAgentStream } from '../../sdk/agent-streams.js';

/** `cove ssh`: a shell or a command in a workspace, over SSH through the relay. */
export const sshCommand: CommandSpec = {
  name: 'ssh',
  summary: 'Open a shell or run a command in a workspace over SSH',
  description:
    'Connects to the workspace agent through the deployment and starts an SSH session: an ' +
    'interactive shell, or COMMAND with its exit code. With --stdio it only carries the SSH ' +
    'connection over standard input and output, for OpenSSH\'s ProxyCommand ("cove config-ssh" writes that).',
  arguments: [
    { name: 'workspace', description: 'WORKSPACE, OWNER/WORKSPACE, or either followed by .AGENT', required: true },
    { name: 'command', description: 'Command to run instead of a shell (after --)', variadic: true },
  ],
  options: [
    { flags: '--stdio', description: 'Carry an SSH connection over stdin/stdout (for OpenSSH ProxyCommand)', default: false },
    { flags: '--ssh-host-prefix <prefix>', description: 'Strip this prefix from the workspace name (what ProxyCommand passes as %h)' },
    { flags: '--no-wait', description: 'Fail at once when the agent is not connected yet, instead of waiting' },
  ],
  examples: [
    'cove ssh dev',
    'cove ssh dev -- echo hello',
    'cove ssh alice/dev.main -- uname -a',
    'ssh -o ProxyCommand="cove ssh --stdio %h" dev',
  ],
  async run(context, [workspaceText = '', ...command], options) {
    const prefix = stringOption(options, 'sshHostPrefix');
    const target = prefix && workspaceText.startsWith(prefix) ? workspaceText.slice(prefix.length) : workspaceText;
    const client = await context.client();
    const { agent } = await resolveWorkspaceAgent(client, target, { io: context.io, wait: options['wait'] !== false });
    const { stream } = await openAgentStream(client, agent.id, { service: 'ssh' });
    if (options['stdio'] === true) return carryStdio(context, stream);
    return runSession(context, stream, command);
  },
};

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
async function runSession(context: CommandContext, stream: Duplex, command: readonly string[]): Promise<number> {
  const { Client } = await import('ssh2');
  const connection = new Client();
  const { io } = context;
  const interactive = io.stdin.isTTY === true && io.stdout.isTTY === true;
  const size = terminalSize(io.stdout);
  return new Promise((resolve, reject) => {
    connection.on('error', (error) => reject(new CliError(`The SSH connection failed: ${error.message}`)));
    connection.on('ready', () => {
      const started = (error: Error | undefined, channel: ClientChannel): void => {
        if (error) {
          connection.end();
          reject(new CliError(`Could not start the session: ${error.message}`));
          return;
        }
        let exitCode = 0;
        channel.on('exit', (code: number | null, signal?: string) => {
          exitCode = code ?? (signal ? 128 + (SIGNALS[signal] ?? 1) : 1);
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
      if (command.length > 0) connection.exec(command.join(' '), pty ? { pty } : {}, started);
      else if (pty) connection.shell(pty, started);
      else connection.shell(false, started);
    });
    // The daemon authorized this user for this workspace, and the agent's host key is made fresh at
    // each start, so there is no key to pin.
    connection.connect({ sock: stream, username: 'cove', hostVerifier: () => true, readyTimeout: 30_000, keepaliveInterval: 15_000 });
  });
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

const SIGNALS: Readonly<Record<string, number>> = { HUP: 1, INT: 2, QUIT: 3, KILL: 9, TERM: 15 };
