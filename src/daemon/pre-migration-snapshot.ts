import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { DatabaseTarget } from '../store/database.js';
import { LATEST_SCHEMA_VERSION } from '../store/migrate.js';
import { backupSqliteFile, inspectSqliteFile } from '../store/sqlite-file.js';

/** A file-name-safe UTC time to the second, e.g. `20261130T021500Z`. */
export function fileTimestamp(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/**
 * Before this binary migrates a SQLite database some earlier release has already used, copies it
 * beside itself as `cove.db.pre-<schema version>[-<release>]-<time>.bak` and logs how to go back
 * to it. A new database (nothing applied yet) and one already up to date are left alone. Returns
 * the snapshot's path when one was made. PostgreSQL is the operator's to back up (pg_dump).
 */
export async function snapshotBeforeMigrating(
  target: DatabaseTarget,
  logger: Logger,
  latest: number = LATEST_SCHEMA_VERSION,
  now: Date = new Date(),
): Promise<string | undefined> {
  if (target.kind !== 'sqlite' || !existsSync(target.file)) return undefined;
  const { schemaVersion, release } = await inspectSqliteFile(target.file, { integrity: false });
  if (schemaVersion === undefined || schemaVersion === 0 || schemaVersion >= latest) return undefined;
  const from = release ? `${schemaVersion}-v${release}` : `${schemaVersion}`;
  const snapshot = `${target.file}.pre-${from}-${fileTimestamp(now)}.bak`;
  const started = Date.now();
  const { bytes } = await backupSqliteFile(target.file, snapshot);
  logger.warn(
    {
      snapshot,
      bytes,
      ms: Date.now() - started,
      fromSchema: schemaVersion,
      toSchema: latest,
      ...(release ? { fromRelease: release } : {}),
      rollback: `stop this daemon; cove server restore ${snapshot} --data-dir ${dirname(target.file)}; start the previous release`,
    },
    'copied the database before migrating it: to go back, stop the daemon, restore the copy with "cove server restore" and run the previous release',
  );
  return snapshot;
}
