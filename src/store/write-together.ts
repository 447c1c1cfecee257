import type { Kysely, QueryCreator } from 'kysely';
import type { DialectName } from './database.js';
import { byName, readColumns, readResults, type Read, type ReadResults } from './read-together.js';
import type { Database } from './schema.js';

/** One write of a group, made from whatever runs it: the database, a transaction, or a chain of CTEs. */
export type Write = (q: QueryCreator<Database>) => { execute(): Promise<unknown> };

/**
 * Runs writes all or nothing, in order. On SQLite that is a transaction. On PostgreSQL it is one
 * statement, the writes before the last as data-modifying CTEs of the last: atomic by itself, and
 * one round trip instead of a transaction's two more than the writes. Foreign keys between the
 * writes hold, since PostgreSQL checks them when the statement ends.
 */
export async function writeTogether(db: Kysely<Database>, dialect: DialectName, writes: readonly Write[]): Promise<void> {
  const last = writes.at(-1);
  if (!last) return;
  if (dialect === 'postgres') {
    await last(asCtes(db, writes.slice(0, -1))).execute();
    return;
  }
  if (writes.length === 1) {
    await last(db).execute();
    return;
  }
  // Inside a transaction already (an audited write): the writes join it.
  if (db.isTransaction) {
    for (const write of writes) await write(db).execute();
    return;
  }
  await db.transaction().execute(async (trx) => {
    for (const write of writes) await write(trx).execute();
  });
}

/**
 * Runs writes all or nothing, as writeTogether does, and reads as the database was just before
 * them, in the same round trip. On PostgreSQL the writes are data-modifying CTEs of one select of
 * the reads (see readTogether), and every part of a statement sees the snapshot it began with. On
 * SQLite the reads run first, in the writes' transaction. What the writes add, the caller knows.
 */
export async function writeTogetherReading<Reads extends Readonly<Record<string, Read | undefined>>>(
  db: Kysely<Database>,
  dialect: DialectName,
  writes: readonly Write[],
  reads: Reads,
): Promise<ReadResults<Reads>> {
  const columns = readColumns(reads);
  if (dialect === 'postgres' && columns.length > 0) {
    return readResults(reads, await asCtes(db, writes).selectNoFrom(columns).executeTakeFirst());
  }
  if (dialect === 'postgres') {
    await writeTogether(db, dialect, writes);
    return readResults(reads, undefined);
  }
  const inOrder = async (trx: Kysely<Database>): Promise<ReadResults<Reads>> => {
    const read = await Promise.all(Object.values(reads).map(async (select) => select && (await trx.executeQuery(select.compile())).rows));
    for (const write of writes) await write(trx).execute();
    return readResults(reads, byName(reads, read));
  };
  // Inside a transaction already (an audited write): the reads and writes join it.
  return db.isTransaction ? inOrder(db) : db.transaction().execute(inOrder);
}

/** The writes as data-modifying CTEs (`write_0`, …) after those of `start`, for the statement that follows them. */
export function asCtes(start: QueryCreator<Database>, writes: readonly Write[]): QueryCreator<Database> {
  let chain = start;
  writes.forEach((write, index) => {
    // A CTE's query only has to be a statement; kysely's type asks for one with output columns.
    chain = chain.with(`write_${index}`, (q) => write(q) as never);
  });
  return chain;
}
