import type { Kysely } from 'kysely';
import type { Clock } from '../lib/clock.js';
import type { Subject } from '../rbac/index.js';
import { AuthorizedStore } from './authorized-store.js';
import { openDatabase, type DatabaseTarget, type DialectName } from './database.js';
import { migrate, type MigrationResult } from './migrate.js';
import { PostgresPubSub } from './pg-pubsub.js';
import { MemoryPubSub, type PubSub } from './pubsub.js';
import type { Database } from './schema.js';

/**
 * The database, its pubsub and the clock, opened once per daemon. Its `db` is the unrestricted
 * handle that only named system work uses (authentication, first start, background workers);
 * request handling goes through `as(subject)`.
 */
export class Store {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  readonly pubsub: PubSub;
  readonly clock: Clock;

  private constructor(db: Kysely<Database>, dialect: DialectName, pubsub: PubSub, clock: Clock) {
    this.db = db;
    this.dialect = dialect;
    this.pubsub = pubsub;
    this.clock = clock;
  }

  /** Opens the database and the matching pubsub. Does not migrate. */
  static async open(target: DatabaseTarget, clock: Clock): Promise<Store> {
    const { db, dialect } = await openDatabase(target);
    try {
      const pubsub = target.kind === 'postgres' ? await PostgresPubSub.connect(target.url) : new MemoryPubSub();
      return new Store(db, dialect, pubsub, clock);
    } catch (error) {
      await db.destroy();
      throw error;
    }
  }

  /** Brings the schema to this binary's version; refuses a newer database. */
  migrate(): Promise<MigrationResult> {
    return migrate(this.db, this.dialect);
  }

  /** A view of the store that authorizes every read and write for `subject`. */
  as(subject: Subject): AuthorizedStore {
    return new AuthorizedStore(this, subject);
  }

  /** The current time as stored: ISO 8601 in UTC. */
  nowIso(): string {
    return this.clock.now().toISOString();
  }

  async close(): Promise<void> {
    await this.pubsub.close();
    await this.db.destroy();
  }
}
