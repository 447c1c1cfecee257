import { spawn } from 'node:child_process';
import { keychainChildLaunch } from './keyring-binding.js';

/** One request to the OS keychain: an entry is a service and an account. */
export type KeychainRequest =
  | { readonly operation: 'get'; readonly service: string; readonly account: string }
  | { readonly operation: 'set'; readonly service: string; readonly account: string; readonly secret: string }
  | { readonly operation: 'delete'; readonly service: string; readonly account: string };

/** The keychain failed, refused or did not answer; the message says which, for people. */
export class KeychainError extends Error {
  /** True when the keychain (or the child running it) did not answer in time: later calls would only wait again. */
  readonly timedOut: boolean;

  constructor(message: string, options: { readonly timedOut?: boolean } = {}) {
    super(message);
    this.name = 'KeychainError';
    this.timedOut = options.timedOut ?? false;
  }
}

/**
 * How long a keychain child may take to start and load the binding. Not the keychain's time:
 * node starts in a tenth of a second on an idle machine and in seconds on a very busy one, and a
 * busy machine is no reason to give up on the keychain.
 */
const START_DEADLINE_MS = 10_000;

/**
 * Runs one keychain request in a child process and returns the binding's answer: the secret or
 * null for `get`, null for `set`, whether an entry was removed for `delete`. The child is killed
 * when it has not answered `deadlineMs` after it was ready (or has not started in
 * `START_DEADLINE_MS`), and nothing of it is left to keep this process alive, so a keychain that
 * hangs (a stopped daemon, an unlock prompt nobody answers) or crashes costs at most `deadlineMs`.
 */
export function callKeychain(
  request: KeychainRequest,
  env: Readonly<Record<string, string | undefined>>,
  deadlineMs: number,
): Promise<unknown> {
  const launch = keychainChildLaunch(env);
  if (!launch) return Promise.reject(new KeychainError('no keychain binding is installed for this platform'));
  return new Promise((resolve, reject) => {
    const child = spawn(launch.command, [...launch.args], {
      env: { ...env, ...launch.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    let timer: NodeJS.Timeout;
    const finish = (error: KeychainError | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(value);
    };
    const killAt = (ms: number, message: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        // A child stuck where even SIGKILL waits (uninterruptible I/O) must not hold this process.
        child.stdin.destroy();
        child.stdout.destroy();
        child.stderr.destroy();
        child.unref();
        finish(new KeychainError(message, { timedOut: true }));
      }, ms);
      timer.unref();
    };
    killAt(START_DEADLINE_MS, `the keychain helper did not start within ${START_DEADLINE_MS / 1000} s`);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const wasReady = stdout.includes('\n');
      stdout += chunk;
      if (!wasReady && stdout.includes('\n')) killAt(deadlineMs, `the keychain did not answer within ${deadlineMs / 1000} s`);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => finish(new KeychainError(`the keychain helper could not start (${error.message})`)));
    // The child may die before reading its request; that is reported by 'close', not here.
    child.stdin.on('error', () => undefined);
    child.on('close', (code, signal) => {
      const reply = parseReply(stdout.slice(stdout.indexOf('\n') + 1));
      if (reply && 'error' in reply) finish(new KeychainError(String(reply.error)));
      else if (reply) finish(undefined, reply.value);
      else if (signal) finish(new KeychainError(`the keychain binding crashed (${signal})`));
      else finish(new KeychainError(`the keychain helper failed (exit ${code ?? '?'}${stderr ? `: ${firstLine(stderr)}` : ''})`));
    });
    child.stdin.end(JSON.stringify(request));
  });
}

function parseReply(text: string): { value?: unknown; error?: unknown } | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
