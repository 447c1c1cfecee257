import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { PubSub, PubSubListener } from './pubsub.js';

/**
 * LISTEN/NOTIFY over one dedicated connection, so that several `serve` replicas sharing a
 * database see each other's events. Publishing goes through the same connection.
 */
export class PostgresPubSub implements PubSub {
  readonly #client: pg.Client;
  readonly #events = new EventEmitter();
  /** Per channel: how many listeners, and the LISTEN they all wait for. */
  readonly #listening = new Map<string, { count: number; ready: Promise<unknown> }>();
  /** The last query sent on the connection; the next one waits for it. */
  #lastQuery: Promise<unknown> = Promise.resolve();

  private constructor(client: pg.Client) {
    this.#client = client;
    this.#events.setMaxListeners(0);
    client.on('notification', (message) => {
      this.#events.emit(message.channel, message.payload ?? '');
    });
    client.on('error', () => undefined);
  }

  /** Connects the dedicated listening connection. */
  static async connect(url: string): Promise<PostgresPubSub> {
    const { default: pgModule } = await import('pg');
    const client = new pgModule.Client({ connectionString: url });
    await client.connect();
    return new PostgresPubSub(client);
  }

  async publish(channel: string, payload: string): Promise<void> {
    await this.#query('select pg_notify($1, $2)', [channel, payload]);
  }

  async subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>> {
    let entry = this.#listening.get(channel);
    if (entry) entry.count++;
    else {
      entry = { count: 1, ready: this.#query(`LISTEN ${quoteIdentifier(channel)}`) };
      this.#listening.set(channel, entry);
    }
    this.#events.on(channel, listener);
    // A second subscriber must not return before the first one's LISTEN is in effect: events in
    // between would be lost, and a caller that checks state after subscribing relies on them.
    await entry.ready;
    return async () => {
      this.#events.off(channel, listener);
      const current = this.#listening.get(channel);
      if (!current) return;
      current.count--;
      if (current.count > 0) return;
      this.#listening.delete(channel);
      await this.#query(`UNLISTEN ${quoteIdentifier(channel)}`).catch(() => undefined);
    };
  }

  /**
   * Sends one query after the ones before it have finished: pg queues queries that overlap on a
   * client only with a deprecation warning (pg 9 refuses them), and publishes and LISTENs overlap.
   */
  #query(text: string, values?: readonly string[]): Promise<unknown> {
    const result = this.#lastQuery.then(() => this.#client.query(text, values ? [...values] : undefined));
    this.#lastQuery = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    this.#events.removeAllListeners();
    await this.#client.end().catch(() => undefined);
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
