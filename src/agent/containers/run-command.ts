import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** With `onLine`, how many of the last lines of each stream the result keeps. */
const STREAMED_TAIL_LINES = 200;

/** How a command run ended. */
export type CommandResult =
  /** The command ran and exited (a signal counts as code 255 when nothing else is known). */
  | { readonly kind: 'exited'; readonly code: number; readonly stdout: string; readonly stderr: string }
  /** The binary does not exist (ENOENT). */
  | { readonly kind: 'missing' }
  /** The command ran past its time limit and was killed. */
  | { readonly kind: 'timeout'; readonly stdout: string; readonly stderr: string }
  /** The command could not be started for another reason (EACCES, …). */
  | { readonly kind: 'failed'; readonly message: string };

export interface RunCommandOptions {
  /** Killed after this long (no limit when absent). */
  readonly timeoutMs?: number;
  /** Receives each output line as it comes; the result then keeps only the last lines of each stream. */
  readonly onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  readonly cwd?: string;
}

/**
 * Runs a binary without a shell and collects its output. Never rejects: a missing binary, a
 * timeout or a failed start are results, so callers can turn each into a sentence for the user.
 */
export function runCommand(file: string, args: readonly string[], options: RunCommandOptions = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: CommandResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, [...args], { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      finish(startFailure(error));
      return;
    }
    const stdout: string[] = [];
    const stderr: string[] = [];
    const streams = Promise.all([
      collect(child.stdout, stdout, 'stdout', options.onLine),
      collect(child.stderr, stderr, 'stderr', options.onLine),
    ]);
    if (options.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, options.timeoutMs);
    }
    child.once('error', (error) => finish(startFailure(error)));
    child.once('close', (code) => {
      void streams.then(() => {
        if (timedOut) finish({ kind: 'timeout', stdout: stdout.join(''), stderr: stderr.join('') });
        else finish({ kind: 'exited', code: code ?? 255, stdout: stdout.join(''), stderr: stderr.join('') });
      });
    });
  });
}

function startFailure(error: unknown): CommandResult {
  const errno = error as NodeJS.ErrnoException;
  if (errno?.code === 'ENOENT') return { kind: 'missing' };
  return { kind: 'failed', message: errno instanceof Error ? errno.message : String(error) };
}

async function collect(
  stream: Readable | null,
  into: string[],
  name: 'stdout' | 'stderr',
  onLine: RunCommandOptions['onLine'],
): Promise<void> {
  if (stream === null) return;
  stream.setEncoding('utf8');
  if (onLine === undefined) {
    for await (const chunk of stream) into.push(chunk as string);
    return;
  }
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    into.push(`${line}\n`);
    if (into.length > STREAMED_TAIL_LINES) into.shift();
    onLine(name, line);
  }
}
