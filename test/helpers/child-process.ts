import type { ChildProcess } from 'node:child_process';

/** Waits until a child prints `pattern` on `stream` (30 s at most), and returns its first group. */
export function waitFor(child: ChildProcess, stream: 'stdout' | 'stderr', pattern: RegExp, what: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not say ${pattern}:\n${seen}`)), 30_000);
    child[stream]?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1] ?? match[0]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${seen}`));
    });
  });
}

/** Stops a child with SIGTERM and waits for it to exit. */
export async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}
