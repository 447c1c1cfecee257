import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { DATABASE_OPTIONS } from './offline-database.js';
import { refusalsToCliErrors } from './server-backup.js';

/** `cove server restore FILE`: a backup put back in place of the SQLite database, with the daemon stopped. */
export const restoreCommand: CommandSpec = {
  name: 'restore',
  summary: "Replace the daemon's SQLite database with a backup (daemon stopped)",
  description:
    'Puts a backup made by "cove server backup" (or a pre-migration snapshot) in place of the daemon\'s SQLite ' +
    'database. The daemon must be stopped: the command refuses while any process has the database open. The file ' +
    'must pass PRAGMA integrity_check and be a Cove database no newer than this binary. The database it replaces ' +
    'is kept beside it as <name>.before-restore-<time>. On PostgreSQL it prints the pg_restore command to run instead.',
  arguments: [{ name: 'file', description: 'The backup to restore', required: true }],
  options: [...DATABASE_OPTIONS],
  examples: ['cove server restore /var/backups/cove-2026-11-30.db --data-dir /var/lib/cove', 'cove server restore cove.db.bak -o json'],
  async run(context, args, options) {
    const file = args[0];
    if (!file) throw new CliError('Give the backup file to restore.', { hint: 'See "cove server restore --help".' });
    const report = await refusalsToCliErrors(context, options, (daemon, location) => daemon.restoreDatabase(location, file));
    if (context.json) {
      printJson(context.io, {
        database: report.database,
        restored_from: report.restoredFrom,
        previous: report.previous ?? null,
        schema_version: report.schemaVersion,
        release: report.release ?? null,
      });
      return 0;
    }
    context.say(`Restored ${report.restoredFrom} to ${report.database} (schema ${report.schemaVersion}).`);
    if (report.previous) context.say(`The database it replaced is kept at ${report.previous}.`);
    context.say('Start "cove serve" to use it; a daemon of this release migrates it if it is older.');
    return 0;
  },
};
