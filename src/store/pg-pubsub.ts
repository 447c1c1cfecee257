import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { PubSub, PubSubListener } from './pubsub.js';

/** Publishes one message through the pool: `select pg_notify(channel, payload)`. */
export type NotifyThroughPool = (channel: string, payload: string) => Promise<void>;

/**
 * LISTEN/NOTIFY over one dedicated connection, so that several `serve` replicas sharing a
 * database see each other's events.
 *
 * Channels of one thing (`workspace:ID`, `provisioner_job:ID`) share one PostgreSQL channel per
 * kind (`workspace:*`), the thing's id leading the payload: a watcher or a job opening and closing
 * then costs no LISTEN and UNLISTEN, which all go one after another through this one connection.
 * Publishing goes through the pool when it is given, so that notifications need not queue there.
 */
export class PostgresPubSub implements PubSub {
  readonly #client: pg.Client;
  readonly #notify: NotifyThroughPool | undefined;
  readonly #events = new EventEmitter();
  /** Per PostgreSQL channel: how many listeners, and the LISTEN they all wait for. */
  readonly #listening = new Map<string, { count: number; ready: Promise<unknown> }>();
  /** The last query sent on the connection; the next one waits for it. */
  #lastQuery: Promise<unknown> = Promise.resolve();

  private constructor(client: pg.Client, notify: NotifyThroughPool | undefined) {
    this.#client = client;
    this.#notify = notify;
    this.#events.setMaxListeners(0);
    client.on('notification', (message) => {
      const payload = message.payload ?? '';
      if (!message.channel.endsWith(KIND_SUFFIX)) {
        this.#events.emit(message.channel, payload);
        return;
      }
      const newline = payload.indexOf('\n');
      if (newline < 0) return;
      const kind = message.channel.slice(0, -KIND_SUFFIX.length);
      this.#events.emit(`${kind}:${payload.slice(0, newline)}`, payload.slice(newline + 1));
    });
    client.on('error', () => undefined);
  }

  /** Connects the dedicated listening connection. */
  static async connect(url: string, notify?: NotifyThroughPool): Promise<PostgresPubSub> {
    const { default: pgModule } = await import('pg');
    const client = new pgModule.Client({ connectionString: url });
    await client.connect();
    return new PostgresPubSub(client, notify);
  }

  async publish(channel: string, payload: string): Promise<void> {
    const { pgChannel, pgPayload } = onServer(channel, payload);
    if (this.#notify) await this.#notify(pgChannel, pgPayload);
    else await this.#query('select pg_notify($1, $2)', [pgChannel, pgPayload]);
  }

  async subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>> {
    const { pgChannel } = onServer(channel, '');
    let entry = this.#listening.get(pgChannel);
    if (entry) entry.count++;
    else {
      entry = { count: 1, ready: this.#query(`LISTEN ${quoteIdentifier(pgChannel)}`) };
      this.#listening.set(pgChannel, entry);
    }
    this.#events.on(channel, listener);
    // A second subscriber must not return before the first one's LISTEN is in effect: events in
    // between would be lost, and a caller that checks state after subscribing relies on them.
    await entry.ready;
    return async () => {
      this.#events.off(channel, listener);
      const current = this.#listening.get(pgChannel);
      if (!current) return;
      current.count--;
      if (current.count > 0) return;
      this.#listening.delete(pgChannel);
      await this.#query(`UNLISTEN ${quoteIdentifier(pgChannel)}`).catch(() => undefined);
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

/** What PostgreSQL channels of one kind of thing end with. */
const KIND_SUFFIX = ':*';

/** The PostgreSQL channel and payload of a message: `kind:id` goes out on `kind:*` with the id first. */
function onServer(channel: string, payload: string): { readonly pgChannel: string; readonly pgPayload: string } {
  const colon = channel.indexOf(':');
  if (colon < 0) return { pgChannel: channel, pgPayload: payload };
  return { pgChannel: `${channel.slice(0, colon)}${KIND_SUFFIX}`, pgPayload: `${channel.slice(colon + 1)}\n${payload}` };
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
