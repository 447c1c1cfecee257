import { EventEmitter } from 'node:events';

/** Receives the payload of each message published on a channel it subscribed to. */
export type PubSubListener = (payload: string) => void;

/**
 * Events between the parts of the daemon, and between replicas on PostgreSQL. Channels are short
 * names such as `workspace:<id>`; payloads are small strings (PostgreSQL caps NOTIFY at 8000 bytes).
 */
export interface PubSub {
  publish(channel: string, payload: string): Promise<void>;
  /** Resolves once the subscription is live; the returned function ends it. */
  subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>>;
  /**
   * Calls `listener` each time the pubsub listens again after losing its connection to the
   * database. Other replicas' messages sent meanwhile were missed: what a message would have
   * refreshed must be refreshed wholesale. Returns the function that stops it.
   */
  onResume(listener: () => void): () => void;
  close(): Promise<void>;
}

/** The in-process pubsub used with SQLite, where only one daemon can own the database file. */
export class MemoryPubSub implements PubSub {
  readonly #events = new EventEmitter();

  constructor() {
    this.#events.setMaxListeners(0);
  }

  async publish(channel: string, payload: string): Promise<void> {
    // Deliver after the publisher's current work, as a remote pubsub would.
    queueMicrotask(() => this.#events.emit(channel, payload));
  }

  async subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>> {
    this.#events.on(channel, listener);
    return async () => {
      this.#events.off(channel, listener);
    };
  }

  /** Never called: messages in one process cannot be missed. */
  onResume(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    this.#events.removeAllListeners();
  }
}
