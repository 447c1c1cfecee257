import { spawn } from 'node:child_process';
import { keychainChildLaunch } from './keyring-binding.js';

/** One request to the OS keychain: an entry is a service and an account. */
export type KeychainRequest =
  | { readonly operation: 'get'; readonly service: string; readonly account: string }
  | { readonly operation: 'set'; readonly service: string; readonly account: string; readonly secret: string }
  | { readonly operation: 'delete'; readonly service: string; readonly account: string };

/** The keychain failed, refused or did not answer; the message says which, for people. */
export class KeychainError extends Error {
  /** True when the keychain did not answer in time: later calls would only wait again. */
  readonly timedOut: boolean;

  constructor(message: string, options: { readonly timedOut?: boolean } = {}) {
    super(message);
    this.name = 'KeychainError';
    this.timedOut = options.timedOut ?? false;
  }
}

/**
 * Runs one keychain request in a child process and returns the binding's answer: the secret or
 * null for `get`, null for `set`, whether an entry was removed for `delete`. The child is killed
 * at the deadline and nothing of it is left to keep this process alive, so a keychain that hangs
 * (a stopped daemon, an unlock prompt nobody answers) or crashes costs at most `deadlineMs`.
 */
export function callKeychain(
  request: KeychainRequest,
  env: Readonly<Record<string, string | undefined>>,
  deadlineMs: number,
): Promise<unknown> {
  const launch = keychainChildLaunch();
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
    const finish = (error: KeychainError | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      // A child stuck where even SIGKILL waits (uninterruptible I/O) must not hold this process.
      child.stdin.destroy();
      child.stdout.destroy();
      child.stderr.destroy();
      child.unref();
      finish(new KeychainError(`the keychain did not answer within ${deadlineMs / 1000} s`, { timedOut: true }));
    }, deadlineMs);
    timer.unref();
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => finish(new KeychainError(`the keychain helper could not start (${error.message})`)));
    // The child may die before reading its request; that is reported by 'close', not here.
    child.stdin.on('error', () => undefined);
    child.on('close', (code, signal) => {
      const reply = parseReply(stdout);
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
