import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, type Dialect, type LogEvent } from 'kysely';
import { connectionLanes, type ConnectionLanes } from './pg-connection-lanes.js';
import { withPreparedStatements } from './pg-prepared-statements.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import { withStorageFailures } from './sqlite-storage-failures.js';
import type { Database } from './schema.js';

/** Which engine a store runs on. Queries are shared; a few statements differ by dialect. */
export type DialectName = 'sqlite' | 'postgres';

/** How to reach the database. */
export type DatabaseTarget = { readonly kind: 'sqlite'; readonly file: string } | { readonly kind: 'postgres'; readonly url: string };

/** An open kysely handle and what it runs on. */
export interface OpenDatabase {
  readonly db: Kysely<Database>;
  /**
   * The same database, for work that finishes what is already under way: on PostgreSQL its
   * statements get the pool's next free connection before `db`'s (see connectionLanes); on SQLite,
   * where nothing queues for a connection, it is `db`.
   */
  readonly urgentDb: Kysely<Database>;
  readonly dialect: DialectName;
  readonly target: DatabaseTarget;
}

interface NativeBindingHost {
  readonly __COVE_NATIVE?: { readonly betterSqlite3?: string };
}

/**
 * Opens the embedded SQLite file (WAL, foreign keys, busy timeout) or a PostgreSQL pool.
 * The drivers are imported here, lazily, so commands that never touch a database never load them.
 */
export async function openDatabase(target: DatabaseTarget, onQuery?: (event: LogEvent) => void): Promise<OpenDatabase> {
  const kysely = (dialect: Dialect) => new Kysely<Database>(onQuery ? { dialect, log: onQuery } : { dialect });
  if (target.kind === 'sqlite') {
    const db = kysely(await sqliteDialect(target.file));
    return { db, urgentDb: db, dialect: target.kind, target };
  }
  const lanes = await postgresLanes(target.url);
  return {
    db: kysely(new PostgresDialect({ pool: lanes.normal })),
    urgentDb: kysely(new PostgresDialect({ pool: lanes.urgent })),
    dialect: target.kind,
    target,
  };
}

async function sqliteDialect(file: string): Promise<Dialect> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const nativeBinding = (globalThis as NativeBindingHost).__COVE_NATIVE?.betterSqlite3;
  const database = new BetterSqlite3(file, nativeBinding ? { nativeBinding } : {});
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  database.pragma('synchronous = NORMAL');
  const directory = file === ':memory:' ? '.' : dirname(file);
  return new SqliteDialect({ database: withStatementCache(withStorageFailures(database, directory)) });
}

/**
 * Ten, node-postgres's default. A page's details (a watch re-read's among them) are one
 * statement, so no read needs many connections at once; more connections only let more
 * statements run side by side on the server, where on a small machine they take turns with the
 * daemon for the same cores. bench/builds.ts on 2 cores, 20 against 10: builds/s 150-156
 * against 152-165, build-to-event p95 51-69 ms against 45-53 ms. Connections open as needed.
 */
const POOL_SIZE = 10;

/** How long opening a connection to PostgreSQL may take before the statement waiting for it fails. */
const CONNECT_TIMEOUT_MS = 5_000;

/** Idle time after which TCP keep-alive probes check that the server is still there. */
const KEEPALIVE_DELAY_MS = 10_000;

async function postgresLanes(url: string): Promise<ConnectionLanes> {
  const { default: pg } = await import('pg');
  // 64-bit integers (log ids, counts, millisecond durations) stay below 2^53; read them as numbers.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    // A server that stops answering without closing its sockets (a host gone, a network cut) must
    // fail statements in time to answer 503, not hold their requests until TCP gives up.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
  // A client that loses its server emits 'error'; with no listener that ends the process. The pool
  // listens only while a client is idle, so every client listens for itself from its first
  // connection on: a client checked out (between a transaction's statements, say) when the server
  // goes away has its statement fail, and the pool drops it when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  pool.on('error', () => undefined);
  return connectionLanes(withPreparedStatements(pool), POOL_SIZE);
}
