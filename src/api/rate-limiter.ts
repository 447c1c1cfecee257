/** The state of one key's window after counting a request. */
export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Unix seconds at which the current window ends. */
  readonly resetAt: number;
}

const WINDOW_MS = 60_000;

/**
 * A sliding-window counter per key: the count of the current one-minute bucket plus the previous
 * bucket's count weighted by how much of it still overlaps the last minute. In memory, per replica.
 */
export class SlidingWindowLimiter {
  readonly limit: number;
  readonly #buckets = new Map<string, { start: number; current: number; previous: number }>();
  #lastSweep = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Counts one request for `key` at `nowMs` and says whether it is within the limit. */
  hit(key: string, nowMs: number): RateDecision {
    const windowStart = nowMs - (nowMs % WINDOW_MS);
    this.#sweep(windowStart);
    let bucket = this.#buckets.get(key);
    if (!bucket || bucket.start < windowStart - WINDOW_MS) {
      bucket = { start: windowStart, current: 0, previous: 0 };
      this.#buckets.set(key, bucket);
    } else if (bucket.start < windowStart) {
      bucket.previous = bucket.current;
      bucket.current = 0;
      bucket.start = windowStart;
    }
    const overlap = 1 - (nowMs - windowStart) / WINDOW_MS;
    const estimate = bucket.previous * overlap + bucket.current;
    const resetAt = Math.ceil((windowStart + WINDOW_MS) / 1000);
    if (estimate >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetAt };
    bucket.current += 1;
    return { allowed: true, limit: this.limit, remaining: Math.max(0, Math.floor(this.limit - estimate - 1)), resetAt };
  }

  // Drops keys idle for two windows so the map does not grow without bound.
  #sweep(windowStart: number): void {
    if (windowStart === this.#lastSweep) return;
    this.#lastSweep = windowStart;
    for (const [key, bucket] of this.#buckets) if (bucket.start < windowStart - WINDOW_MS) this.#buckets.delete(key);
  }
}
