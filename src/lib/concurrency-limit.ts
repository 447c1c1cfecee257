/**
 * Runs at most `limit` tasks at once; the others wait their turn in arrival order. For work whose
 * memory or CPU must stay bounded however many requests ask for it at the same time.
 */
export class ConcurrencyLimit {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a concurrency limit must be a positive integer, not ${limit}`);
    this.#limit = limit;
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running;
  }

  /** Tasks waiting for a turn. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `task` once a turn is free, and frees the turn when it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      // The turn passes straight to the next task, so `running` never drops below the limit while some wait.
      if (next) next();
      else this.#running--;
    }
  }
}
