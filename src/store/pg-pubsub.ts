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
  readonly #listening = new Map<string, number>();

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
    await this.#client.query('select pg_notify($1, $2)', [channel, payload]);
  }

  async subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>> {
    const count = this.#listening.get(channel) ?? 0;
    this.#listening.set(channel, count + 1);
    this.#events.on(channel, listener);
    if (count === 0) await this.#client.query(`LISTEN ${quoteIdentifier(channel)}`);
    return async () => {
      this.#events.off(channel, listener);
      const left = (this.#listening.get(channel) ?? 1) - 1;
      if (left > 0) {
        this.#listening.set(channel, left);
        return;
      }
      this.#listening.delete(channel);
      await this.#client.query(`UNLISTEN ${quoteIdentifier(channel)}`).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    this.#events.removeAllListeners();
    await this.#client.end().catch(() => undefined);
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
