/** The source of "now" for every expiry and scheduler, so tests can move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

/** Wall-clock time. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date = new Date()) {
    this.#ms = start.getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.#ms += ms;
  }

  set(to: Date): void {
    this.#ms = to.getTime();
  }
}
