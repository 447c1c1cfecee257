import { chmodSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';

interface NativeBindingHost {
  readonly __COVE_NATIVE?: { readonly betterSqlite3?: string };
}

/** One raw connection to a SQLite file, for work on the file as a whole (backups, checks), outside the store. */
export async function openSqliteFile(
  file: string,
  options: { readonly readonly?: boolean; readonly timeoutMs?: number } = {},
): Promise<BetterSqlite3.Database> {
  const { default: Sqlite } = await import('better-sqlite3');
  const nativeBinding = (globalThis as NativeBindingHost).__COVE_NATIVE?.betterSqlite3;
  return new Sqlite(file, {
    ...(nativeBinding ? { nativeBinding } : {}),
    ...(options.readonly ? { readonly: true, fileMustExist: true } : {}),
    timeout: options.timeoutMs ?? 5_000,
  });
}

/** How far a backup has come, in pages of the source. */
export interface BackupProgress {
  readonly totalPages: number;
  readonly remainingPages: number;
}

/** What a finished backup wrote. */
export interface BackupSummary {
  readonly pages: number;
  readonly bytes: number;
}

/** Pages copied per step while nothing else writes: about a twentieth of the file, so progress moves visibly. */
function pagesPerStep(totalPages: number): number {
  return Math.max(100, Math.ceil(totalPages / 20));
}

/**
 * Copies a SQLite database with SQLite's online backup, while other processes read and write it:
 * the copy is the database as one transaction saw it. SQLite starts a backup again when another
 * connection writes between two steps; after the first such restart the rest is copied in one step
 * (one read transaction, which in WAL mode holds no writer up), so a busy database still finishes.
 * The copy is written beside `destination` and renamed into place once complete.
 */
export async function backupSqliteFile(
  source: string,
  destination: string,
  onProgress?: (progress: BackupProgress) => void,
): Promise<BackupSummary> {
  const partial = `${destination}.partial-${process.pid}`;
  rmSync(partial, { force: true });
  const db = await openSqliteFile(source, { readonly: true });
  let pages = 0;
  try {
    let lowest = Number.POSITIVE_INFINITY;
    let restarted = false;
    const result = await db.backup(partial, {
      progress: ({ totalPages, remainingPages }) => {
        if (remainingPages > lowest) restarted = true;
        lowest = Math.min(lowest, remainingPages);
        onProgress?.({ totalPages, remainingPages });
        return restarted ? 0x7fffffff : pagesPerStep(totalPages);
      },
    });
    pages = result.totalPages;
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
  onProgress?.({ totalPages: pages, remainingPages: 0 });
  // The copy holds what the database holds (password hashes, tokens): as private as the database.
  chmodSync(partial, 0o600);
  renameSync(partial, destination);
  return { pages, bytes: statSync(destination).size };
}

/**
 * Whether some connection (a daemon serving it, another command) has the database open: in WAL
 * mode every open connection holds a shared lock on the file, so an exclusive one is refused at once.
 */
export async function sqliteFileInUse(file: string): Promise<boolean> {
  if (!existsSync(file)) return false;
  const db = await openSqliteFile(file, { timeoutMs: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY' || (error as { code?: string }).code === 'SQLITE_LOCKED') return true;
    throw error;
  } finally {
    db.close();
  }
}

/** What a SQLite file holds, as far as telling a Cove database from anything else goes. */
export interface SqliteDatabaseFacts {
  /** `["ok"]` for a sound file, else SQLite's list of problems; empty when not checked. */
  readonly integrity: readonly string[];
  /** The highest migration applied; undefined when the file has no migration table at all. */
  readonly schemaVersion: number | undefined;
  /** The newest release recorded as having served it, when one is. */
  readonly release: string | undefined;
}

/**
 * Reads a SQLite file's schema version and, unless told not to (it reads every page), its
 * integrity, without changing it. Throws when it is not a SQLite database.
 */
export async function inspectSqliteFile(file: string, options: { readonly integrity?: boolean } = {}): Promise<SqliteDatabaseFacts> {
  const db = await openSqliteFile(file, { readonly: true });
  try {
    const integrity =
      options.integrity === false ? [] : (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
    const tables = new Set(
      (db.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((row) => row.name),
    );
    const schemaVersion = tables.has('cove_migrations')
      ? Number((db.prepare('select max(version) as version from cove_migrations').get() as { version: number | null }).version ?? 0)
      : undefined;
    const release = tables.has('cove_releases')
      ? (db.prepare('select version from cove_releases order by first_started_at desc limit 1').get() as { version: string } | undefined)
          ?.version
      : undefined;
    return { integrity, schemaVersion, release };
  } finally {
    db.close();
  }
}
