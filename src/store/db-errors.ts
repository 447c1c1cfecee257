import { ConflictError } from '../lib/errors.js';

interface DriverError {
  readonly code?: unknown;
  readonly constraint?: unknown;
  readonly message?: unknown;
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
