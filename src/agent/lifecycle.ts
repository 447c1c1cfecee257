import type { AgentMessage, LifecycleState } from '../sdk/wire/agent-protocol.js';

/** The order lifecycle states go through; the agent never moves backwards. */
const ORDER: Readonly<Record<string, number>> = {
  created: 0,
  starting: 1,
  start_timeout: 2,
  start_error: 2,
  ready: 2,
  shutting_down: 3,
  shutdown_timeout: 4,
  shutdown_error: 4,
  off: 4,
};

/**
 * The agent's lifecycle state. Each change is reported once through `send`, which queues it while
 * disconnected, so the daemon sees every step in order.
 */
export class Lifecycle {
  readonly #send: (message: AgentMessage) => void;
  readonly #now: () => Date;
  #state: LifecycleState = 'created';

  constructor(send: (message: AgentMessage) => void, now: () => Date = () => new Date()) {
    this.#send = send;
    this.#now = now;
  }

  get state(): LifecycleState {
    return this.#state;
  }

  /** Reports the initial `created` state; separate so it goes out only once a connection is being made. */
  announce(): void {
    this.#report('created');
  }

  /** Moves to `state` and reports it; ignored when it would go backwards or stay put. */
  moveTo(state: LifecycleState): boolean {
    if ((ORDER[state] ?? -1) <= (ORDER[this.#state] ?? -1)) return false;
    this.#state = state;
    this.#report(state);
    return true;
  }

  #report(state: LifecycleState): void {
    this.#send({ type: 'lifecycle', state, changed_at: this.#now().toISOString() });
  }
}
