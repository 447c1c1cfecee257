import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Distinct statements kept prepared; the least recently used go first past this. */
const DEFAULT_CAPACITY = 500;

/**
 * The database as kysely's SQLite driver sees it, with prepared statements kept for reuse:
 * preparing every query again was a sixth of the daemon's time under load. Kysely runs one query
 * at a time on the connection, so a statement is never used by two queries at once.
 */
export function withStatementCache(database: SqliteDatabase, capacity = DEFAULT_CAPACITY): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      if (cached) {
        // Re-inserting moves it to the end: the Map's order is the recency order.
        statements.delete(sql);
        statements.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > capacity) {
        const oldest = statements.keys().next().value;
        if (oldest !== undefined) statements.delete(oldest);
      }
      return statement;
    },
    close(): void {
      statements.clear();
      database.close();
    },
  };
}
