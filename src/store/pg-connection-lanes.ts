import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** Two ways into one pool: `urgent` callers are given the next free connection before `normal` ones. */
export interface ConnectionLanes {
  readonly normal: PostgresPool;
  readonly urgent: PostgresPool;
}

/**
 * Most connections in a row the urgent lane takes while the normal lane waits: a steady stream of
 * urgent work (a thousand watchers opening at once) slows the rest down, but never stops it.
 */
const URGENT_STREAK = 3;

/**
 * Lets `size` connections of `pool` out at a time (the pool's own size, so that the pool itself
 * never queues) and decides who gets the next one free: anyone waiting in the urgent lane first,
 * then the others, each lane in order of arrival; but after three urgent ones in a row, a waiting
 * normal one.
 *
 * Under load every connection is busy and statements queue for one. Work that finishes what is
 * already under way (a job's completion, the re-read that tells watchers of it) then waits behind
 * work that starts more (new builds, claims, pages), and its delay grows with the load it is not
 * part of. In the urgent lane it waits only for the next connection to come free.
 *
 * Ending the normal lane ends the pool; the urgent lane is only another way into it.
 */
export function connectionLanes(pool: PostgresPool, size: number): ConnectionLanes {
  let out = 0;
  const waiting = { urgent: [] as (() => void)[], normal: [] as (() => void)[] };
  /** Connections handed to the urgent lane in a row while the normal lane waited. */
  let streak = 0;

  const next = (): void => {
    const normalsTurn = waiting.normal.length > 0 && (waiting.urgent.length === 0 || streak >= URGENT_STREAK);
    const wake = normalsTurn ? waiting.normal.shift() : waiting.urgent.shift();
    streak = normalsTurn || waiting.normal.length === 0 ? 0 : streak + 1;
    if (wake) wake();
    else out--;
  };

  const connect = async (lane: 'urgent' | 'normal'): Promise<PostgresPoolClient> => {
    // A connection handed over by `next` is still counted as out: it passes from one caller to the next.
    if (out < size) out++;
    else await new Promise<void>((resolve) => waiting[lane].push(resolve));
    let client: PostgresPoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      next();
      throw error;
    }
    let released = false;
    return {
      query: client.query.bind(client) as PostgresPoolClient['query'],
      release: () => {
        if (released) return;
        released = true;
        client.release();
        next();
      },
    };
  };

  return {
    normal: { connect: () => connect('normal'), end: () => pool.end() },
    urgent: { connect: () => connect('urgent'), end: async () => undefined },
  };
}
