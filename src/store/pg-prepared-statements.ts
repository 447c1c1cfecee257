import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/** A statement is prepared by name from its second use: one-off statements stay unnamed. */
const PREPARE_FROM_USE = 2;
/** Distinct statements given a name; past this, new ones run unnamed, so ad hoc SQL cannot grow the server's caches. */
const MAX_NAMED_STATEMENTS = 2_000;
/** Distinct statements counted before the counts start over. */
const MAX_COUNTED_STATEMENTS = 10_000;

/** The query method of pg's pool client, which takes a named query config besides kysely's two forms. */
interface NamedQueryClient {
  query(config: {
    readonly name: string;
    readonly text: string;
    readonly values: readonly unknown[];
  }): Promise<PostgresQueryResult<unknown>>;
}

/**
 * kysely's pg pool, with the daemon's repeated statements prepared by name. PostgreSQL then parses
 * and plans each of them once per connection instead of on every execution, which was a large share
 * of the server's work per query: a build runs about fifty small statements. Statements with no
 * parameters (transaction control, migrations, which may hold several commands) run as before.
 */
export function withPreparedStatements(pool: PostgresPool): PostgresPool {
  const uses = new Map<string, number>();
  const names = new Map<string, string>();

  const nameOf = (sql: string): string | undefined => {
    const known = names.get(sql);
    if (known !== undefined || names.size >= MAX_NAMED_STATEMENTS) return known;
    if (uses.size >= MAX_COUNTED_STATEMENTS) uses.clear();
    const count = (uses.get(sql) ?? 0) + 1;
    if (count < PREPARE_FROM_USE) {
      uses.set(sql, count);
      return undefined;
    }
    uses.delete(sql);
    const name = `cove_${names.size + 1}`;
    names.set(sql, name);
    return name;
  };

  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      const named = client as unknown as NamedQueryClient;
      function query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
      function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
      function query<R>(
        sqlOrCursor: string | PostgresCursor<R>,
        parameters?: readonly unknown[],
      ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
        if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor);
        const values = parameters ?? [];
        const name = values.length > 0 ? nameOf(sqlOrCursor) : undefined;
        if (name === undefined) return client.query<R>(sqlOrCursor, values);
        return named.query({ name, text: sqlOrCursor, values }) as Promise<PostgresQueryResult<R>>;
      }
      return { query, release: () => client.release() };
    },
    end: () => pool.end(),
  };
}
