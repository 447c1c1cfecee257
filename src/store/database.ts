import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, type Dialect, type LogEvent } from 'kysely';
import { withPreparedStatements } from './pg-prepared-statements.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import type { Database } from './schema.js';

/** Which engine a store runs on. Queries are shared; a few statements differ by dialect. */
export type DialectName = 'sqlite' | 'postgres';

/** How to reach the database. */
export type DatabaseTarget = { readonly kind: 'sqlite'; readonly file: string } | { readonly kind: 'postgres'; readonly url: string };

/** An open kysely handle and what it runs on. */
export interface OpenDatabase {
  readonly db: Kysely<Database>;
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
  const dialect = target.kind === 'sqlite' ? await sqliteDialect(target.file) : await postgresDialect(target.url);
  return { db: new Kysely<Database>(onQuery ? { dialect, log: onQuery } : { dialect }), dialect: target.kind, target };
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
  return new SqliteDialect({ database: withStatementCache(database) });
}

async function postgresDialect(url: string): Promise<Dialect> {
  const { default: pg } = await import('pg');
  // 64-bit integers (log ids, counts, millisecond durations) stay below 2^53; read them as numbers.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  // Twenty rather than node-postgres's ten: the built-in provisioner daemons, the API and the
  // watch streams' re-reads (several statements side by side each) share the pool, and with ten a
  // busy daemon's watchers waited on it (bench/builds.ts: build-to-event p50 about 40 ms with ten,
  // 19 ms with twenty, builds/s the same). Connections open only as they are needed.
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  // An idle client that loses its server must not crash the daemon; the next query reconnects.
  pool.on('error', () => undefined);
  return new PostgresDialect({ pool: withPreparedStatements(pool) });
}
