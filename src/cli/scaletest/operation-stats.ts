/** One operation's figures over a run, as the report prints them (milliseconds). */
export interface OperationSummary {
  readonly operation: string;
  readonly count: number;
  readonly errors: number;
  readonly p50_ms: number;
  readonly p95_ms: number;
  readonly p99_ms: number;
  readonly max_ms: number;
  /** Successful operations per second over the measured time. */
  readonly per_second: number;
  /** The first few error messages, to say what went wrong. */
  readonly first_errors: readonly string[];
}

const KEPT_ERRORS = 3;

/** The value at percentile `p` (0-100) of ascending `sorted`, nearest-rank; 0 when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** Latencies and errors of named operations (`GET /workspaces`, `terminal echo`, …) during a run. */
export class OperationStats {
  readonly #latencies = new Map<string, number[]>();
  readonly #errors = new Map<string, string[]>();
  readonly #errorCounts = new Map<string, number>();
  #startedAt = performance.now();

  /** Starts the clock again, forgetting everything recorded so far. */
  reset(): void {
    this.#latencies.clear();
    this.#errors.clear();
    this.#errorCounts.clear();
    this.#startedAt = performance.now();
  }

  record(operation: string, ms: number): void {
    let list = this.#latencies.get(operation);
    if (!list) this.#latencies.set(operation, (list = []));
    list.push(ms);
  }

  fail(operation: string, message: string): void {
    this.#errorCounts.set(operation, (this.#errorCounts.get(operation) ?? 0) + 1);
    let list = this.#errors.get(operation);
    if (!list) this.#errors.set(operation, (list = []));
    if (list.length < KEPT_ERRORS && !list.includes(message)) list.push(message);
  }

  /** Runs `work`, recording its duration under `operation`, or its error (rethrown). */
  async time<T>(operation: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await work();
      this.record(operation, performance.now() - started);
      return result;
    } catch (error) {
      this.fail(operation, (error as Error).message);
      throw error;
    }
  }

  get count(): number {
    let total = 0;
    for (const list of this.#latencies.values()) total += list.length;
    return total;
  }

  get errors(): number {
    let total = 0;
    for (const count of this.#errorCounts.values()) total += count;
    return total;
  }

  /** Every operation's figures, in the order first seen. */
  summaries(): OperationSummary[] {
    const seconds = Math.max((performance.now() - this.#startedAt) / 1000, 1e-3);
    const names = [...new Set([...this.#latencies.keys(), ...this.#errorCounts.keys()])];
    return names.map((name) =>
      summarize(name, this.#latencies.get(name) ?? [], this.#errorCounts.get(name) ?? 0, seconds, this.#errors.get(name) ?? []),
    );
  }

  /** One row over every operation whose name passes `include`. */
  combined(name: string, include: (operation: string) => boolean): OperationSummary {
    const seconds = Math.max((performance.now() - this.#startedAt) / 1000, 1e-3);
    let latencies: number[] = [];
    let errors = 0;
    const messages: string[] = [];
    // concat, not push(...list): a long run's hundreds of thousands of echoes overflow the arguments' stack.
    for (const [operation, list] of this.#latencies) if (include(operation)) latencies = latencies.concat(list);
    for (const [operation, count] of this.#errorCounts) if (include(operation)) errors += count;
    for (const [operation, list] of this.#errors) if (include(operation)) messages.push(...list);
    return summarize(name, latencies, errors, seconds, messages.slice(0, KEPT_ERRORS));
  }
}

function summarize(
  operation: string,
  latencies: readonly number[],
  errors: number,
  seconds: number,
  firstErrors: readonly string[],
): OperationSummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    operation,
    count: sorted.length,
    errors,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    p99_ms: round(percentile(sorted, 99)),
    max_ms: round(sorted.at(-1) ?? 0),
    per_second: round(sorted.length / seconds),
    first_errors: firstErrors,
  };
}

const round = (value: number): number => Math.round(value * 1000) / 1000;
