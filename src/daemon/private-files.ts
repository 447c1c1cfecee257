import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The files SQLite keeps beside the database; WAL and shared memory take the database file's mode. */
const DATABASE_FILES = ['cove.db', 'cove.db-wal', 'cove.db-shm'];

const PRIVATE_DIRECTORY = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Makes the data directory readable by its owner only (it holds password and token hashes and the
 * uploaded templates) and creates the database file with mode 0600 before SQLite opens it, whatever
 * the umask. Files an older daemon left readable by others are tightened. Returns what it tightened,
 * for the log.
 */
export function securePrivateFiles(dataDir: string, sqlite: boolean): string[] {
  const tightened: string[] = [];
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIRECTORY });
  const tighten = (path: string, mode: number): void => {
    const current = statSync(path, { throwIfNoEntry: false });
    if (!current || (current.mode & 0o777 & ~mode) === 0) return;
    // A shared directory such as /tmp (sticky bit) given as the data directory is not ours to close.
    if (current.isDirectory() && (current.mode & 0o1000) !== 0) return;
    chmodSync(path, mode);
    tightened.push(path);
  };
  tighten(dataDir, PRIVATE_DIRECTORY);
  if (!sqlite) return tightened;
  for (const name of DATABASE_FILES) tighten(join(dataDir, name), PRIVATE_FILE);
  // SQLite gives the files it creates (WAL, shared memory) the mode of the database file.
  closeSync(openSync(join(dataDir, 'cove.db'), 'a', PRIVATE_FILE));
  return tightened;
}
