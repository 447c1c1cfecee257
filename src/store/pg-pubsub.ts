import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { PRESENCE_CHANNEL, ReplicaPresence } from './pg-replica-presence.js';
import type { PubSub, PubSubListener } from './pubsub.js';

/** A message as PostgreSQL carries it. */
export interface Notification {
  readonly channel: string;
  readonly payload: string;
}

/** Runs one statement through the pool: `text` (from `notifyStatement`) with its values. */
export type NotifyThroughPool = (text: string, values: readonly string[]) => Promise<void>;

/** Most notifications sent by one statement. */
const MAX_BATCH = 64;

/** How often a replica that sends notifications counts again whether anyone else listens. */
const RECOUNT_MS = 10_000;

/** The first wait before opening a lost listening connection again; it doubles on every failed try. */
const FIRST_RETRY_MS = 100;

/** The longest wait between tries: a database that is back is listened to again within this. */
const MAX_RETRY_MS = 2_000;

/** The listening connection's application_name, as pg_stat_activity shows it. */
export const LISTENER_APPLICATION_NAME = 'cove notifications';

/** Idle time after which TCP keep-alive probes check that the server is still there. */
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * How long opening the listening connection may take, as for the pool's: a subscriber waiting for
 * a try to a server that does not answer (a network cut) is answered 503 then, not after TCP's
 * own timeout of minutes.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * LISTEN/NOTIFY over one dedicated connection, so that several `serve` replicas sharing a
 * database see each other's events.
 *
 * Channels of one thing (`workspace:ID`, `provisioner_job:ID`) share one PostgreSQL channel per
 * kind (`workspace:*`), the thing's id leading the payload: a watcher or a job opening and closing
 * then costs no LISTEN and UNLISTEN, which all go one after another through this one connection.
 * Publishing goes through the pool when it is given, so that notifications need not queue there.
 * Subscribers in this process hear a message as soon as it is published, not a round trip later;
 * each payload on the server starts with this pubsub's origin, so its own return is passed over.
 * Messages go out together in one statement: those published in the same turn of the event loop,
 * and, while one statement is on its way, all published meanwhile, which then follow it. A build
 * publishes several, and each round trip costs both sides more than the notification itself; under
 * load the batches grow instead of the statements multiplying, and one after another they keep
 * their order. PostgreSQL keeps the order within a statement, and drops a repeat of the same
 * channel and payload there, which for these "something changed" messages loses nothing.
 * Nothing at all is sent while no other replica listens to the database (see ReplicaPresence).
 *
 * The listening connection is not expected to die, but a database restart or a network cut ends
 * it: it is then opened again, with backoff, until the database answers; this replica rejoins the
 * others and every channel still subscribed is listened to again. Whatever other replicas sent
 * meanwhile is lost, so those who refresh something on an event are told (`onResume`) to refresh
 * it wholesale. While the connection is down a new subscription fails at once, as any statement
 * would, and publishing goes on through the pool.
 */
export class PostgresPubSub implements PubSub {
  #client: pg.Client;
  /** Opens another listening connection, to the same database, when the current one is lost. */
  readonly #open: () => pg.Client;
  /** The listening connection was lost and is not yet listening again. */
  #down = false;
  #reconnecting: Promise<void> | undefined;
  /** Ends the reconnection's current wait early, while it waits. */
  #retryNow: (() => void) | undefined;
  /** Told, after the next try to begin, whether it listens again. */
  readonly #attemptWaiters: ((listening: boolean) => void)[] = [];
  #closed = false;
  readonly #resumeListeners = new Set<() => void>();
  readonly #notify: NotifyThroughPool | undefined;
  readonly #events = new EventEmitter();
  /** Per PostgreSQL channel: how many listeners, and the LISTEN they all wait for. */
  readonly #listening = new Map<string, { count: number; ready: Promise<unknown> }>();
  /** The last query sent on the connection; the next one waits for it. */
  #lastQuery: Promise<unknown> = Promise.resolve();
  /** Leads every payload this pubsub sends, so that it can pass over its own when they come back. */
  readonly #origin = randomBytes(6).toString('hex');
  /** Messages waiting for the end of this turn and for the statement before them, and the promise of their sending. */
  #batch: { readonly messages: Notification[]; readonly sent: Promise<void> } | undefined;
  /** The last batch's sending, settled either way: the next batch starts after it. */
  #previous: Promise<unknown> = Promise.resolve();
  readonly #presence: ReplicaPresence;
  #recount: NodeJS.Timeout | undefined;

  private constructor(open: () => pg.Client, client: pg.Client, notify: NotifyThroughPool | undefined) {
    this.#open = open;
    this.#client = client;
    this.#notify = notify;
    this.#events.setMaxListeners(0);
    this.#presence = new ReplicaPresence((text, values) => this.#query(text, values) as Promise<pg.QueryResult>, this.#origin);
    this.#attach(client);
  }

  /** Hears `client`'s notifications, and notices when it is lost. */
  #attach(client: pg.Client): void {
    client.on('notification', (message) => this.#heard(message));
    // Without a listener, the connection's 'error' would end the process.
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
  }

  /** A notification on the listening connection: for this pubsub's subscribers, or the replicas' presence. */
  #heard(message: pg.Notification): void {
    const received = message.payload ?? '';
    const afterOrigin = received.indexOf('\n');
    // Our own messages were delivered here when they were published.
    if (afterOrigin < 0 || received.slice(0, afterOrigin) === this.#origin) return;
    const payload = received.slice(afterOrigin + 1);
    if (message.channel === PRESENCE_CHANNEL) {
      this.#presence.heard(received.slice(0, afterOrigin), payload);
      return;
    }
    if (!message.channel.endsWith(KIND_SUFFIX)) {
      this.#events.emit(message.channel, payload);
      return;
    }
    const newline = payload.indexOf('\n');
    if (newline < 0) return;
    const kind = message.channel.slice(0, -KIND_SUFFIX.length);
    this.#events.emit(`${kind}:${payload.slice(0, newline)}`, payload.slice(newline + 1));
  }

  /** The listening connection `client` ended or failed: unless it is an old one, or closing, connect again. */
  #lost(client: pg.Client): void {
    if (client !== this.#client || this.#closed) return;
    this.#down = true;
    this.#reconnecting ??= this.#reconnect().finally(() => {
      this.#reconnecting = undefined;
      // The new connection was lost too, after the last attempt had looked.
      if (this.#down && !this.#closed) this.#lost(this.#client);
    });
  }

  /**
   * Opens a new listening connection until one works, waiting longer between tries up to
   * MAX_RETRY_MS; then tells the resume listeners. A subscriber that cannot wait (see #tryNow) cuts
   * a wait short, and one that comes while a try is under way has the next try at once: the try
   * under way began before it asked, maybe before the database was back.
   */
  async #reconnect(): Promise<void> {
    for (let delay = FIRST_RETRY_MS; !this.#closed; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
      if (this.#attemptWaiters.length === 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          timer.unref();
          this.#retryNow = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#retryNow = undefined;
      }
      const askedBefore = this.#attemptWaiters.splice(0);
      const listening = !this.#closed && (await this.#attempt());
      for (const settle of askedBefore) settle(listening);
      if (!listening) continue;
      // Those who asked during a try that worked subscribe on the connection it opened.
      for (const settle of this.#attemptWaiters.splice(0)) settle(true);
      for (const listener of this.#resumeListeners) {
        try {
          listener();
        } catch {
          // One listener's failure must not keep the others from refreshing.
        }
      }
      return;
    }
    for (const settle of this.#attemptWaiters.splice(0)) settle(false);
  }

  /** One try: a new connection that rejoins the replicas and listens to every channel subscribed. */
  async #attempt(): Promise<boolean> {
    const client = this.#open();
    // Failures while connecting come through connect(); this only keeps a late one from ending the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch {
      void client.end().catch(() => undefined);
      return false;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return false;
    }
    this.#client = client;
    this.#down = false;
    this.#attach(client);
    try {
      await this.#presence.join();
      const channels = [...this.#listening.keys()];
      if (channels.length > 0) {
        const listened = this.#query(channels.map((channel) => `LISTEN ${quoteIdentifier(channel)}`).join('; '));
        await listened;
        // Subscribers from now on need not wait for a LISTEN that failed with the old connection.
        for (const channel of channels) {
          const entry = this.#listening.get(channel);
          if (entry) entry.ready = listened;
        }
      }
      return true;
    } catch {
      this.#down = true;
      await client.end().catch(() => undefined);
      return false;
    }
  }

  /**
   * While the listening connection is down: tries to open it now rather than at the end of the
   * current wait (or, when a try is under way, right after it), and resolves once it listens
   * again, or fails as a lost connection would when this try fails too. A subscriber so gets its
   * subscription as soon as the database is back, and a 503 (see databaseFailure) while it is not.
   */
  #tryNow(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#attemptWaiters.push((listening) =>
        listening ? resolve() : reject(Object.assign(new Error('the database connection for notifications is down'), { code: '08006' })),
      );
      this.#retryNow?.();
    });
  }

  onResume(listener: () => void): () => void {
    this.#resumeListeners.add(listener);
    return () => this.#resumeListeners.delete(listener);
  }

  /**
   * Connects the dedicated listening connection, and takes this replica's place among those
   * listening to the database. `recountMs` is how often it counts the others again;
   * `connectTimeoutMs`, how long opening the connection may take (CONNECT_TIMEOUT_MS).
   */
  static async connect(
    url: string,
    notify?: NotifyThroughPool,
    options: { readonly recountMs?: number; readonly connectTimeoutMs?: number } = {},
  ): Promise<PostgresPubSub> {
    const { default: pgModule } = await import('pg');
    // Keep-alive probes notice a server that vanished without closing the connection (a host gone,
    // a network cut), where nothing else would: this connection only waits for notifications.
    // Named, so that an operator reading pg_stat_activity can tell it from the pool's connections.
    const open = () =>
      new pgModule.Client({
        connectionString: url,
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
        connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        application_name: LISTENER_APPLICATION_NAME,
      });
    const client = open();
    // Failures while connecting come through connect(); this only keeps a late one from ending the process.
    client.on('error', () => undefined);
    await client.connect();
    const pubsub = new PostgresPubSub(open, client, notify);
    try {
      await pubsub.#presence.join();
    } catch (error) {
      await pubsub.close();
      throw error;
    }
    pubsub.#recount = setInterval(() => void pubsub.#presence.recount().catch(() => undefined), options.recountMs ?? RECOUNT_MS);
    pubsub.#recount.unref();
    return pubsub;
  }

  publish(channel: string, payload: string): Promise<void> {
    // Subscribers here hear it at once, as with the in-process pubsub; other replicas through NOTIFY.
    queueMicrotask(() => this.#events.emit(channel, payload));
    if (!this.#presence.othersListening) return Promise.resolve();
    const { pgChannel, pgPayload } = onServer(channel, payload);
    if (!this.#batch) {
      const messages: Notification[] = [];
      const before = this.#previous;
      const sent = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => before)
        .then(() => {
          this.#batch = undefined;
          return this.#send(messages);
        });
      this.#previous = sent.catch(() => undefined);
      this.#batch = { messages, sent };
    }
    this.#batch.messages.push({ channel: pgChannel, payload: `${this.#origin}\n${pgPayload}` });
    return this.#batch.sent;
  }

  async #send(messages: readonly Notification[]): Promise<void> {
    // One chunk after another: chunks sent side by side through the pool could arrive out of order.
    for (let start = 0; start < messages.length; start += MAX_BATCH) {
      const chunk = messages.slice(start, start + MAX_BATCH);
      const text = notifyStatement(chunk.length);
      const values = chunk.flatMap((message) => [message.channel, message.payload]);
      await (this.#notify ? this.#notify(text, values) : this.#query(text, values));
    }
  }

  async subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>> {
    const { pgChannel } = onServer(channel, '');
    if (this.#down && !this.#closed) await this.#tryNow();
    let entry = this.#listening.get(pgChannel);
    if (entry) entry.count++;
    else {
      entry = { count: 1, ready: this.#query(`LISTEN ${quoteIdentifier(pgChannel)}`) };
      this.#listening.set(pgChannel, entry);
    }
    this.#events.on(channel, listener);
    // A second subscriber must not return before the first one's LISTEN is in effect: events in
    // between would be lost, and a caller that checks state after subscribing relies on them.
    try {
      await entry.ready;
    } catch (error) {
      // No LISTEN (the connection is down): undo this subscription, so that a later one tries again.
      this.#events.off(channel, listener);
      entry.count--;
      if (entry.count <= 0 && this.#listening.get(pgChannel) === entry) this.#listening.delete(pgChannel);
      throw error;
    }
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
    this.#closed = true;
    clearInterval(this.#recount);
    this.#resumeListeners.clear();
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

const statements: string[] = [];

/** `select pg_notify($1, $2), pg_notify($3, $4), …` for `count` messages; the same text each time, so it can be prepared. */
function notifyStatement(count: number): string {
  let text = statements[count];
  if (text === undefined) {
    text = `select ${Array.from({ length: count }, (_, i) => `pg_notify($${2 * i + 1}, $${2 * i + 2})`).join(', ')}`;
    statements[count] = text;
  }
  return text;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
