import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { DialectName } from './database.js';
import type { Database } from './schema.js';

/** A column value that reads back the same from a JSON document: never a Buffer (bytea). */
type JsonColumn = string | number | boolean | null;

/**
 * One select of a group, from any tables: its rows must survive JSON, which the PostgreSQL form
 * sends them through, so a select with a binary column does not compile.
 */
export type Read = SelectQueryBuilder<Database, any, Record<string, JsonColumn>>;

/** The rows of each read, by the name it was given; none for a read left undefined. */
export type ReadResults<Reads extends Readonly<Record<string, Read | undefined>>> = {
  readonly [Name in keyof Reads]: NonNullable<Reads[Name]> extends SelectQueryBuilder<any, any, infer Row> ? Row[] : never[];
};

/**
 * Runs independent selects and gives each one's rows. On SQLite each runs as it is: the reads are
 * calls in this process. On PostgreSQL they are one statement: each select is a subquery whose rows
 * `json_agg` gathers into one column (in the select's own order, the subquery being all there is to
 * aggregate), so a page of details costs one round trip and one connection rather than one each.
 * A read left undefined (nothing to look up) gives no rows and is not sent.
 */
export async function readTogether<Reads extends Readonly<Record<string, Read | undefined>>>(
  db: Kysely<Database>,
  dialect: DialectName,
  reads: Reads,
): Promise<ReadResults<Reads>> {
  if (dialect === 'postgres') {
    const columns = readColumns(reads);
    return readResults(reads, columns.length === 0 ? undefined : await db.selectNoFrom(columns).executeTakeFirst());
  }
  return readResults(reads, byName(reads, await Promise.all(Object.values(reads).map((read) => read?.execute()))));
}

/** The rows of each read by its name, from rows given in the order of `reads`. */
export function byName(
  reads: Readonly<Record<string, Read | undefined>>,
  rows: readonly (readonly unknown[] | undefined)[],
): Record<string, unknown[]> {
  return Object.fromEntries(Object.keys(reads).map((name, index) => [name, [...(rows[index] ?? [])]]));
}

/**
 * The PostgreSQL form of `reads`, as the columns of one select: each read a subquery whose rows
 * `json_agg` gathers (in the read's own order, the subquery being all there is to aggregate).
 * Reads left undefined have no column.
 */
export function readColumns(reads: Readonly<Record<string, Read | undefined>>) {
  return Object.entries(reads).flatMap(([name, read]) =>
    read ? [sql<unknown[]>`(select coalesce(json_agg("r"), '[]'::json) from (${read}) as "r")`.as(name)] : [],
  );
}

/** Each read's rows from the one row a select of {@link readColumns} gave; none for a read left undefined. */
export function readResults<Reads extends Readonly<Record<string, Read | undefined>>>(
  reads: Reads,
  row: Readonly<Record<string, unknown[]>> | undefined,
): ReadResults<Reads> {
  return Object.fromEntries(Object.keys(reads).map((name) => [name, (reads[name] && row?.[name]) ?? []])) as ReadResults<Reads>;
}
