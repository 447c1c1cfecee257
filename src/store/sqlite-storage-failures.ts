import { statfsSync } from 'node:fs';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** The part of better-sqlite3's database this wrapper uses beyond kysely's interface. */
export interface TransactionAwareDatabase extends SqliteDatabase {
  /** Whether a transaction is open on the connection right now. */
  readonly inTransaction: boolean;
}

/** Free space under which an I/O error on the database's disk is taken for a full disk. */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * The database as kysely's SQLite driver sees it, with a full disk reported as one.
 *
 * When a write runs out of room (SQLITE_FULL) SQLite may roll the whole transaction back itself.
 * kysely then sends its own ROLLBACK, which fails with "cannot rollback - no transaction is
 * active", and that error replaces the one that said what happened: a ROLLBACK with no transaction
 * open is therefore skipped here, and the disk-full error reaches the caller. Some writes that run
 * out of room fail as an I/O error instead (a WAL or shared-memory file that cannot grow): one of
 * those while the disk is nearly full is reported as SQLITE_FULL too, with the I/O error as its cause.
 */
export function withStorageFailures(database: TransactionAwareDatabase, directory: string): SqliteDatabase {
  const explain = (error: unknown): unknown => {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || !code.startsWith('SQLITE_IOERR') || !nearlyFull(directory)) return error;
    return Object.assign(new Error(`database or disk is full (${code})`, { cause: error }), { code: 'SQLITE_FULL' });
  };
  const attempt = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      throw explain(error);
    }
  };
  return {
    prepare(sql: string): SqliteStatement {
      const statement = attempt(() => database.prepare(sql));
      if (/^\s*rollback\s*$/i.test(sql)) {
        return {
          reader: false,
          all: (parameters) => (database.inTransaction ? statement.all(parameters) : []),
          run: (parameters) => (database.inTransaction ? statement.run(parameters) : { changes: 0, lastInsertRowid: 0 }),
          iterate: (parameters) => (database.inTransaction ? statement.iterate(parameters) : [][Symbol.iterator]()),
        };
      }
      return {
        reader: statement.reader,
        all: (parameters) => attempt(() => statement.all(parameters)),
        run: (parameters) => attempt(() => statement.run(parameters)),
        iterate: (parameters) => attempt(() => statement.iterate(parameters)),
      };
    },
    close: () => database.close(),
  };
}

function nearlyFull(directory: string): boolean {
  try {
    const stats = statfsSync(directory);
    return stats.bavail * stats.bsize < NEARLY_FULL_BYTES;
  } catch {
    return false;
  }
}
