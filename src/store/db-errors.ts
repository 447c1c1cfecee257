import { ConflictError } from '../lib/errors.js';

interface DriverError {
  readonly code?: unknown;
  readonly constraint?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
  readonly errors?: unknown;
}

/**
 * Turns a unique-constraint failure from either driver into a ConflictError naming the index, and
 * passes anything else through unchanged.
 */
export function translateDbError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const e = error as DriverError;
  if (e.code === '23505') return new ConflictError(String(e.constraint ?? 'unique'));
  if (typeof e.code === 'string' && (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')) {
    const match = /index '([^']+)'/.exec(String(e.message)) ?? /failed: (\S+)/.exec(String(e.message));
    return new ConflictError(match?.[1] ?? 'unique');
  }
  return error;
}

/** Runs a write and rethrows unique violations as ConflictError. */
export async function withConflicts<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw translateDbError(error);
  }
}

/**
 * What went wrong with the database itself, as opposed to with a statement: `unavailable` when it
 * cannot be reached or is going away (the request may succeed once it is back), `disk-full` when
 * SQLite had no room to write. Anything else is undefined.
 */
export type DatabaseFailure = 'unavailable' | 'disk-full';

/** Socket errors of node's net and dns modules that mean the server cannot be reached. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL's SQLSTATEs for a server that is going away or not yet there: administrator shutdown,
 * crash shutdown, starting up; too many connections and out of connection slots for everyone else.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P05', '53300']);

/**
 * What node-postgres says, without a code, when a connection died under it, when a client is used
 * after that, and when its pool could not connect in time or has been ended (a shutdown under way).
 */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Cannot use a pool after calling end on the pool|Connection terminated due to connection timeout|Query read timeout)/;

/**
 * Classifies a failure as the database's own (see DatabaseFailure), looking through causes and
 * aggregated errors: node reports a connection refused on every address of a host as one
 * AggregateError, and a wrapper may keep the driver's error as its cause.
 */
export function databaseFailure(error: unknown, depth = 0): DatabaseFailure | undefined {
  if (typeof error !== 'object' || error === null || depth > 4) return undefined;
  const e = error as DriverError;
  const code = typeof e.code === 'string' ? e.code : '';
  if (code === 'SQLITE_FULL') return 'disk-full';
  if (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) return 'unavailable';
  if (typeof e.message === 'string' && !code.startsWith('SQLITE') && UNAVAILABLE_MESSAGES.test(e.message)) return 'unavailable';
  const inner = [e.cause, ...(Array.isArray(e.errors) ? (e.errors as unknown[]) : [])];
  for (const cause of inner) {
    const found = databaseFailure(cause, depth + 1);
    if (found) return found;
  }
  return undefined;
}
