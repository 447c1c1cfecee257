import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { resolveOptions } from '../domain/deployment-options.js';
import { LATEST_SCHEMA_VERSION } from '../store/migrate.js';
import { backupSqliteFile, inspectSqliteFile, openSqliteFile, sqliteFileInUse, type BackupProgress } from '../store/sqlite-file.js';
import { databaseTarget } from './daemon.js';
import type { DatabaseLocation } from './offline-user-admin.js';
import { fileTimestamp } from './pre-migration-snapshot.js';

/** A backup or restore that was not done; the message says why, the hint what to do instead. */
export class BackupRefusedError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** What `cove server backup` made. */
export interface BackupReport {
  readonly database: string;
  readonly output: string;
  readonly bytes: number;
  readonly pages: number;
  readonly schemaVersion: number;
  readonly integrity: string;
  readonly durationMs: number;
}

/** What `cove server restore` did. */
export interface RestoreReport {
  readonly database: string;
  readonly restoredFrom: string;
  /** Where the database it replaced was kept; absent when there was none. */
  readonly previous?: string;
  readonly schemaVersion: number;
  readonly release?: string;
}

/** The URL with its password left out, for commands printed to a screen. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

function sqliteFileOf(location: DatabaseLocation, doing: 'backup' | 'restore', file: string): string {
  const target = databaseTarget(resolveOptions({ flags: location.flags, env: location.env }));
  if (target.kind === 'sqlite') return target.file;
  const url = withoutPassword(target.url);
  const passwordHint = 'Give the password in PGPASSWORD or ~/.pgpass; see "Backups, upgrades and rollback" in docs/operations.md.';
  if (doing === 'backup')
    throw new BackupRefusedError(
      'The database is PostgreSQL: back it up with pg_dump, which takes a consistent snapshot while the daemon serves.',
      `Run: pg_dump --format=custom --file=${JSON.stringify(file)} ${JSON.stringify(url)}\n${passwordHint}`,
    );
  throw new BackupRefusedError(
    'The database is PostgreSQL: restore it with pg_restore into an empty database, with every daemon stopped.',
    `Run: pg_restore --no-owner --exit-on-error --dbname=${JSON.stringify(url)} ${JSON.stringify(file)}\n${passwordHint}`,
  );
}

/**
 * Copies the daemon's SQLite database to `output` with SQLite's online backup, safe while a daemon
 * serves and writes it, then checks the copy's integrity. An existing `output` is replaced only
 * with `force`. On PostgreSQL it refuses, giving the pg_dump command to run instead.
 */
export async function backupDatabase(
  location: DatabaseLocation,
  output: string,
  options: { readonly force?: boolean; readonly onProgress?: (progress: BackupProgress) => void } = {},
): Promise<BackupReport> {
  const database = sqliteFileOf(location, 'backup', output);
  const destination = resolve(output);
  if (!existsSync(database)) throw new BackupRefusedError(`There is no Cove database at ${database}.`);
  if (destination === resolve(database)) throw new BackupRefusedError('The backup cannot be written over the database itself.');
  if (existsSync(destination) && !options.force)
    throw new BackupRefusedError(`${destination} exists already.`, 'Give --force to replace it, or choose another file.');
  if (!existsSync(dirname(destination))) throw new BackupRefusedError(`The directory ${dirname(destination)} does not exist.`);
  const started = Date.now();
  const { pages, bytes } = await backupSqliteFile(database, destination, options.onProgress);
  const facts = await inspectSqliteFile(destination);
  const integrity = facts.integrity.join('; ');
  if (integrity !== 'ok') throw new BackupRefusedError(`The copy at ${destination} failed its integrity check: ${integrity}`);
  return {
    database,
    output: destination,
    bytes,
    pages,
    schemaVersion: facts.schemaVersion ?? 0,
    integrity,
    durationMs: Date.now() - started,
  };
}

/**
 * Puts a backup in place of the daemon's SQLite database, keeping the database it replaces as
 * `<name>.before-restore-<time>`. Refuses while any process has the database open (a daemon
 * serving it), and refuses a file that is not a sound Cove database this binary can run: one
 * failing SQLite's integrity check, with no migrations, or migrated by a newer release.
 */
export async function restoreDatabase(location: DatabaseLocation, file: string, now: Date = new Date()): Promise<RestoreReport> {
  const database = sqliteFileOf(location, 'restore', file);
  const source = resolve(file);
  if (!existsSync(source)) throw new BackupRefusedError(`There is no file at ${source}.`);
  if (source === resolve(database)) throw new BackupRefusedError('That file is the database itself.');
  let facts;
  try {
    facts = await inspectSqliteFile(source);
  } catch (error) {
    throw new BackupRefusedError(`${source} is not a Cove database: ${(error as Error).message}.`);
  }
  const integrity = facts.integrity.join('; ');
  if (integrity !== 'ok') throw new BackupRefusedError(`${source} failed SQLite's integrity check: ${integrity}`);
  if (!facts.schemaVersion) throw new BackupRefusedError(`${source} is not a Cove database: it has no Cove schema.`);
  if (facts.schemaVersion > LATEST_SCHEMA_VERSION)
    throw new BackupRefusedError(
      `${source} was migrated by a newer release (schema ${facts.schemaVersion}; this binary knows up to ${LATEST_SCHEMA_VERSION}).`,
      'Restore it with the release that made it.',
    );
  if (await sqliteFileInUse(database))
    throw new BackupRefusedError(`The database at ${database} is in use: a daemon is serving it.`, 'Stop "cove serve" first.');
  let previous: string | undefined;
  if (existsSync(database)) {
    // Closing the last connection writes the WAL's pages into the file and removes it: the file moved aside is whole.
    const db = await openSqliteFile(database);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    previous = `${database}.before-restore-${fileTimestamp(now)}`;
    renameSync(database, previous);
  }
  for (const leftover of ['-wal', '-shm']) rmSync(`${database}${leftover}`, { force: true });
  mkdirSync(dirname(database), { recursive: true, mode: 0o700 });
  const partial = `${database}.restoring-${process.pid}`;
  copyFileSync(source, partial);
  chmodSync(partial, 0o600);
  renameSync(partial, database);
  return {
    database,
    restoredFrom: source,
    ...(previous ? { previous } : {}),
    schemaVersion: facts.schemaVersion,
    ...(facts.release ? { release: facts.release } : {}),
  };
}
