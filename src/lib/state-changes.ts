import { EventEmitter } from 'node:events';

/**
 * Lets code wait for a condition on an object's state: the object calls `notify()` after each
 * change, and `until(done)` resolves once `done()` holds (checked at once and after each change),
 * or when `timeoutMs` has passed.
 */
export class StateChanges {
  readonly #events = new EventEmitter();

  constructor() {
    this.#events.setMaxListeners(0);
  }

  notify(): void {
    this.#events.emit('change');
  }

  until(done: () => boolean, timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.#events.off('change', check);
        resolve();
      };
      const check = (): void => {
        if (done()) finish();
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(finish, timeoutMs);
      this.#events.on('change', check);
      check();
    });
  }
}
