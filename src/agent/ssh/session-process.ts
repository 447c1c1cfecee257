import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { Writable } from 'node:stream';
import type { IPty } from 'node-pty';
import type { ServerChannel } from 'ssh2';
import type { AgentLogger } from '../agent-logger.js';

/** The terminal a session asked for with `pty-req`. */
export interface PtyRequest {
  readonly term: string;
  readonly cols: number;
  readonly rows: number;
}

/** What to run for one shell or exec request, and where. */
export interface SessionProcessSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Run in a pseudo-terminal of this size; absent: plain pipes with stderr kept apart. */
  readonly pty?: PtyRequest;
  readonly logger: AgentLogger;
  /** Between SIGHUP and SIGKILL when the channel closes under a running process (2 000 ms). */
  readonly killGraceMs?: number;
  /** After the process exits, how long its output pipes may stay open before we stop waiting (2 000 ms). */
  readonly pipeGraceMs?: number;
  /** Called once, after the exit was reported (or the process could not start), with the status the client was sent. */
  readonly onEnd?: (exitStatus: number) => void;
}

/** A running session process, as the SSH session drives it. */
export interface SessionProcess {
  /** `window-change`: ignored without a PTY. */
  resize(cols: number, rows: number): void;
  /** A `signal` request, by SSH name (`INT`, `TERM`...); false when the name is unknown or nothing runs. */
  signal(name: string): boolean;
  /** The channel went away: SIGHUP now, SIGKILL after the grace unless the process is gone. */
  hangUp(): void;
}

/** The signal names RFC 4254 lets `exit-signal` carry (and ssh2 accepts). */
const SSH_EXIT_SIGNALS = new Set(['ABRT', 'ALRM', 'FPE', 'HUP', 'ILL', 'INT', 'QUIT', 'SEGV', 'TERM', 'USR1', 'USR2', 'KILL', 'PIPE']);

/** Exit status for a process that never ran, as shells report "command not found". */
const NOT_STARTED = 127;

let ptyModule: Promise<typeof import('node-pty')> | undefined;

/**
 * node-pty is a native addon: loaded on the first PTY request, so the agent starts without it and a
 * broken build fails only the sessions that need a terminal.
 */
function loadPty(): Promise<typeof import('node-pty')> {
  ptyModule ??= import('node-pty').then((loaded) => (loaded as { default?: typeof import('node-pty') }).default ?? loaded);
  return ptyModule;
}

/**
 * Starts a session's process on an accepted channel and reports its end the way sshd does: all output
 * first, then `exit-status` (or `exit-signal`), then EOF and close. Without a PTY, stdout goes to the
 * channel, stderr to its extended stream, and the client's EOF reaches stdin. The process gets its own
 * session and process group, so hanging up reaches what it started too.
 */
export function startSessionProcess(channel: ServerChannel, spec: SessionProcessSpec): SessionProcess {
  const { logger } = spec;
  let pid: number | undefined;
  let pty: IPty | undefined;
  let ended = false;
  let hungUp = false;
  let killTimer: NodeJS.Timeout | undefined;
  let size = spec.pty ? { cols: spec.pty.cols, rows: spec.pty.rows } : undefined;

  // Late writes after the client closed the channel land here instead of crashing the agent.
  channel.on('error', (err: Error) => logger.warn({ err: err.message }, 'ssh session channel error'));
  channel.stderr.on('error', (err: Error) => logger.warn({ err: err.message }, 'ssh session stderr error'));

  const report = (code: number | null, signal: NodeJS.Signals | null): void => {
    if (ended) return;
    ended = true;
    clearTimeout(killTimer);
    // Whatever the client still sends has nowhere to go; reading it lets ssh2 finish the close.
    channel.unpipe();
    channel.resume();
    void Promise.all([flushed(channel, channel), flushed(channel.stderr, channel)]).then(() => {
      try {
        sendExit(channel, code, signal);
        channel.end();
      } catch (err) {
        logger.warn({ err: errorMessage(err) }, 'ssh session exit report failed');
      }
      spec.onEnd?.(exitStatusOf(code, signal));
    });
  };

  const fail = (err: unknown): void => {
    logger.warn({ err: errorMessage(err), file: spec.file }, 'ssh session process failed to start');
    if (channel.stderr.writable)
      channel.stderr.write(`cove: cannot run ${spec.file} in ${spec.cwd}: ${errorMessage(err)}${spec.pty ? '\r\n' : '\n'}`);
    report(NOT_STARTED, null);
  };

  const signalGroup = (signal: NodeJS.Signals): void => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        process.kill(pid, signal);
      } catch {
        // Already gone.
      }
    }
  };

  const startPiped = (): void => {
    const child = spawn(spec.file, [...spec.args], { cwd: spec.cwd, env: { ...spec.env }, detached: true, stdio: 'pipe' });
    pid = child.pid;
    const streamError = (name: string) => (err: Error) => {
      // EPIPE on stdin is normal when a command exits without reading its input.
      if ((err as NodeJS.ErrnoException).code !== 'EPIPE') logger.warn({ err: err.message, stream: name }, 'ssh session pipe error');
    };
    child.stdin.on('error', streamError('stdin'));
    child.stdout.on('error', streamError('stdout'));
    child.stderr.on('error', streamError('stderr'));
    child.stdout.pipe(channel, { end: false });
    child.stderr.pipe(channel.stderr, { end: false });
    channel.pipe(child.stdin);

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let pipeTimer: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(pipeTimer);
      child.stdout.unpipe(channel);
      child.stderr.unpipe(channel.stderr);
      report(exit?.code ?? null, exit?.signal ?? null);
    };
    child.once('error', (err) => {
      if (child.pid === undefined) fail(err);
      else logger.warn({ err: err.message }, 'ssh session process error');
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // A background job may keep the output pipes open for ever; sshd would hang, we stop waiting.
      pipeTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        done();
      }, spec.pipeGraceMs ?? 2000);
    });
    child.once('close', (code, signal) => {
      exit ??= { code, signal };
      done();
    });
  };

  const startPty = (module: typeof import('node-pty'), request: PtyRequest): void => {
    const term = module.spawn(spec.file, [...spec.args], {
      name: request.term,
      cols: size?.cols ?? request.cols,
      rows: size?.rows ?? request.rows,
      cwd: spec.cwd,
      env: { ...spec.env },
      // Raw bytes: a UTF-8 sequence split across reads must reach the client intact.
      encoding: null,
    });
    pty = term;
    pid = term.pid;
    let waiting = false;
    term.onData((data: string | Buffer) => {
      if (ended || channel.write(data) || waiting) return;
      // The client's window is full: stop reading the terminal until it drains.
      waiting = true;
      term.pause();
      channel.once('drain', () => {
        waiting = false;
        term.resume();
      });
    });
    channel.on('data', (data: Buffer) => {
      if (!ended) term.write(data);
    });
    term.onExit(({ exitCode, signal }) => {
      pty = undefined;
      report(signal ? null : exitCode, signal ? signalName(signal) : null);
    });
  };

  const ptyRequest = spec.pty;
  if (ptyRequest) {
    loadPty().then(
      (module) => {
        if (hungUp) {
          report(null, 'SIGHUP');
          return;
        }
        try {
          startPty(module, ptyRequest);
        } catch (err) {
          fail(err);
        }
      },
      (err: unknown) => fail(err),
    );
  } else {
    try {
      startPiped();
    } catch (err) {
      fail(err);
    }
  }

  return {
    resize(cols, rows) {
      if (!spec.pty || cols <= 0 || rows <= 0) return;
      size = { cols, rows };
      try {
        pty?.resize(cols, rows);
      } catch (err) {
        // The terminal can close between the exit and our hearing of it.
        logger.warn({ err: errorMessage(err) }, 'ssh session resize failed');
      }
    },
    signal(name) {
      const signal = `SIG${name.toUpperCase().replace(/^SIG/, '')}`;
      if (ended || pid === undefined || !(signal in osConstants.signals)) return false;
      try {
        process.kill(pid, signal);
        return true;
      } catch {
        return false;
      }
    },
    hangUp() {
      if (ended || hungUp) return;
      hungUp = true;
      signalGroup('SIGHUP');
      killTimer = setTimeout(() => signalGroup('SIGKILL'), spec.killGraceMs ?? 2000);
    },
  };
}

/** Resolves when everything written to `stream` so far has gone out, or the channel is gone. */
function flushed(stream: Writable, channel: ServerChannel): Promise<void> {
  return new Promise((resolve) => {
    if (!stream.writable || stream.writableEnded) {
      resolve();
      return;
    }
    // Write callbacks run in order, so an empty write completes after every earlier one.
    channel.once('close', () => resolve());
    stream.write(Buffer.alloc(0), () => resolve());
  });
}

/** The status a shell would show for this exit (`$?`): the code, or 128 plus the signal's number. */
function exitStatusOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (signal) return 128 + (osConstants.signals[signal] ?? 0);
  return code ?? 255;
}

function sendExit(channel: ServerChannel, code: number | null, signal: NodeJS.Signals | null): void {
  if (signal) {
    const name = signal.replace(/^SIG/, '');
    if (SSH_EXIT_SIGNALS.has(name)) channel.exit(name, false, '');
    else channel.exit(128 + (osConstants.signals[signal] ?? 0));
    return;
  }
  channel.exit(code ?? 255);
}

function signalName(signal: number): NodeJS.Signals | null {
  for (const [name, value] of Object.entries(osConstants.signals)) {
    if (value === signal) return name as NodeJS.Signals;
  }
  return null;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
