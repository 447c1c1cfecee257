import type { Logger } from 'pino';

/**
 * Work the daemon repeats on a timer, such as marking inactive users dormant. Time inside the
 * work comes from the daemon's clock, so tests call `runNow()` after moving the clock instead of
 * waiting for the timer. Runs never overlap.
 */
export class PeriodicTask {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<void>,
    private readonly logger: Logger,
  ) {}

  /** Starts the timer; the first run is one interval away. */
  start(): void {
    if (this.#timer || this.intervalMs <= 0) return;
    this.#timer = setInterval(() => void this.runNow(), this.intervalMs);
    this.#timer.unref();
  }

  /** Runs the work once now, or joins the run in progress. Failures are logged, not thrown. */
  runNow(): Promise<void> {
    this.#running ??= this.work()
      .catch((error: unknown) => this.logger.error({ err: error, task: this.name }, 'periodic task failed'))
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
