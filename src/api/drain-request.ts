import type { IncomingMessage } from 'node:http';

/** How much of an unread body is read and dropped so the client sees the answer, at the most. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;
const DRAIN_LIMIT_MS = 10_000;

/**
 * Reads and drops what is left of a request body the daemon answers without reading (an oversized
 * or unauthenticated upload). Answering first and closing makes the client's pending writes fail,
 * so it sees a reset instead of the answer. Bounded in bytes and time; resolves whether or not the
 * body was read to its end, and never holds the bytes.
 */
export function drainRequest(raw: IncomingMessage): Promise<boolean> {
  if (raw.complete || raw.destroyed) return Promise.resolve(raw.complete);
  return new Promise((resolve) => {
    let read = 0;
    const finish = (drained: boolean): void => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onClose);
      raw.off('error', onClose);
      resolve(drained);
    };
    const onData = (chunk: Buffer): void => {
      read += chunk.length;
      if (read > DRAIN_LIMIT_BYTES) finish(false);
    };
    const onEnd = (): void => finish(true);
    const onClose = (): void => finish(raw.complete);
    const timer = setTimeout(() => finish(false), DRAIN_LIMIT_MS);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('close', onClose);
    raw.once('error', onClose);
    raw.resume();
  });
}
