/** Backoff between reconnection attempts. */
export interface ReconnectBackoff {
  readonly initialMs?: number;
  readonly maxMs?: number;
}

/** Exponential, capped, with "equal jitter": half fixed, half random, so clients spread out. */
export function backoffDelay(initialMs: number, maxMs: number, attempt: number): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Keeps a connection up until `signal` aborts: `dial` (a failure goes to `onDialError`), `serve`
 * until it ends, then wait with backoff and dial again. A connection that opens after `signal`
 * aborted is handed to `discard` instead. Only a connection that lasted resets the backoff, so a
 * peer that accepts and closes at once is still backed off from.
 */
export async function reconnectLoop<T>(options: {
  readonly signal: AbortSignal;
  readonly backoff?: ReconnectBackoff | undefined;
  readonly dial: () => Promise<T>;
  readonly onDialError: (error: unknown) => void;
  readonly serve: (connection: T) => Promise<void>;
  readonly discard: (connection: T) => void;
}): Promise<void> {
  const initialMs = options.backoff?.initialMs ?? 250;
  const maxMs = options.backoff?.maxMs ?? 10_000;
  let attempt = 0;
  while (!options.signal.aborted) {
    const startedAt = Date.now();
    let connection: T | undefined;
    try {
      connection = await options.dial();
    } catch (error) {
      options.onDialError(error);
    }
    if (connection !== undefined && options.signal.aborted) {
      options.discard(connection);
      return;
    }
    if (connection !== undefined) await options.serve(connection);
    if (options.signal.aborted) return;
    if (connection !== undefined && Date.now() - startedAt >= maxMs) attempt = 0;
    await sleep(backoffDelay(initialMs, maxMs, attempt), options.signal);
    attempt += 1;
  }
}
