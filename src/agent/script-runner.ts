import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { AgentLogInput, AgentMessage, ManifestScript } from '../sdk/wire/agent-protocol.js';
import { expandPath } from './session-environment.js';

/** When a script runs. */
export type ScriptStage = 'start' | 'stop' | 'cron';

/** How a script run ended, as `script_completed` reports it. */
export type ScriptCompleted = Extract<AgentMessage, { type: 'script_completed' }>;

/** Where a script runs and where its output goes. */
export interface ScriptRunOptions {
  readonly stage: ScriptStage;
  /** The working directory: the agent's expanded directory. */
  readonly cwd: string;
  /** The session environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Receives each output line: stdout as `info`, stderr as `error`. */
  readonly onLine: (level: AgentLogInput['level'], output: string) => void;
  /** Where a relative `log_path` is resolved (default: `cwd`). */
  readonly logDir?: string;
  /** After the timeout's SIGTERM, how long before SIGKILL (10 000 ms). */
  readonly killGraceMs?: number;
  /** After the process exits, how long its output pipes may stay open (10 000 ms). */
  readonly pipeGraceMs?: number;
  /** Aborting stops the script as a timeout does (used at shutdown). */
  readonly signal?: AbortSignal;
}

/** Exit code reported when the real one is unknown (killed by a signal, or never started). */
const UNKNOWN_EXIT = 255;

/**
 * Runs one script through `sh -c` in its own process group, streaming its output lines, and
 * resolves with its `script_completed` report. A script past its `timeout` gets SIGTERM, then
 * SIGKILL after the grace period, for the whole group: a script's children must not outlive it.
 */
export function runScript(script: ManifestScript, options: ScriptRunOptions): Promise<ScriptCompleted> {
  const startedAt = new Date();
  const logFile = openLogFile(script, options);
  const emit = (level: AgentLogInput['level'], line: string): void => {
    options.onLine(level, line);
    logFile?.write(`${line}\n`);
  };
  return new Promise((resolvePromise) => {
    const child = spawn('sh', ['-c', script.script], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const interrupt = (): void => {
      if (timedOut || child.exitCode !== null || child.signalCode !== null) return;
      timedOut = true;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), options.killGraceMs ?? 10_000);
    };
    const timeoutTimer = script.timeout > 0 ? setTimeout(interrupt, script.timeout * 1000) : undefined;
    options.signal?.addEventListener('abort', interrupt, { once: true });
    const streamsDone = Promise.all([
      readLines(child.stdout, (line) => emit('info', line)),
      readLines(child.stderr, (line) => emit('error', line)),
    ]);

    let settled = false;
    const finish = (exitCode: number, status: ScriptCompleted['status']): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', interrupt);
      logFile?.end();
      resolvePromise({
        type: 'script_completed',
        script_id: script.id,
        started_at: startedAt.toISOString(),
        ended_at: new Date().toISOString(),
        exit_code: exitCode,
        stage: options.stage,
        status,
      });
    };
    child.once('error', (error) => {
      emit('error', `could not run the script: ${error.message}`);
      finish(UNKNOWN_EXIT, 'exit_failure');
    });
    child.once('exit', (code) => {
      const exitCode = code ?? UNKNOWN_EXIT;
      const status = timedOut ? 'timed_out' : exitCode === 0 ? 'ok' : 'exit_failure';
      // A background child holding stdout would keep us waiting for ever; give it a grace period.
      const pipeTimer = setTimeout(() => {
        emit('error', 'the script exited but its output is still open (a background process?); no longer reading it');
        child.stdout.destroy();
        child.stderr.destroy();
        finish(exitCode, status === 'ok' ? 'pipes_left_open' : status);
      }, options.pipeGraceMs ?? 10_000);
      void streamsDone.then(() => {
        clearTimeout(pipeTimer);
        finish(exitCode, status);
      });
    });
  });
}

function readLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): Promise<void> {
  return new Promise((resolvePromise) => {
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    lines.on('line', onLine);
    lines.once('close', () => resolvePromise());
    stream.once('error', () => resolvePromise());
  });
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** The script's `log_path`, expanded and opened for appending; none when it is unset or unusable. */
function openLogFile(script: ManifestScript, options: ScriptRunOptions): WriteStream | undefined {
  if (!script.log_path) return undefined;
  const expanded = expandPath(script.log_path, options.env);
  const path = isAbsolute(expanded) ? expanded : resolve(options.logDir ?? options.cwd, expanded);
  try {
    mkdirSync(dirname(path), { recursive: true });
    const stream = createWriteStream(path, { flags: 'a' });
    // A log file that cannot be written must not fail the script; its lines still go to the daemon.
    stream.on('error', () => undefined);
    return stream;
  } catch {
    return undefined;
  }
}
