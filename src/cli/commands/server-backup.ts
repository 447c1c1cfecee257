import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { DATABASE_OPTIONS, onDatabase } from './offline-database.js';

type DaemonModule = typeof import('../../daemon/index.js');

/** Files smaller than this are copied in a blink: no progress is shown for them. */
const PROGRESS_FROM_BYTES = 64 * 1024 * 1024;

/** Runs a backup or restore, turning its refusals into one clear line with what to do instead. */
export async function refusalsToCliErrors<T>(
  context: CommandContext,
  options: Readonly<Record<string, unknown>>,
  work: (daemon: DaemonModule, location: Parameters<DaemonModule['backupDatabase']>[0]) => Promise<T>,
): Promise<T> {
  return onDatabase(context, options, async (daemon, location) => {
    try {
      return await work(daemon, location);
    } catch (error) {
      if (error instanceof daemon.BackupRefusedError) throw new CliError(error.message, error.hint ? { hint: error.hint } : {});
      throw error;
    }
  });
}

/** `cove server backup`: a consistent copy of the SQLite database, taken while the daemon serves. */
export const backupCommand: CommandSpec = {
  name: 'backup',
  summary: "Copy the daemon's SQLite database to a file, while it serves",
  description:
    "Copies the daemon's SQLite database with SQLite's online backup: the copy is consistent even while a " +
    'daemon serves and writes the database, so there is no need to stop it. The copy is checked with PRAGMA ' +
    'integrity_check. Restore it with "cove server restore". On PostgreSQL it prints the pg_dump command to run instead.',
  // A positional file: `--output` is the global output format (-o json) everywhere in the CLI.
  arguments: [{ name: 'file', description: 'The file to write the copy to', required: true }],
  options: [{ flags: '--force', description: 'Replace the output file when it exists', default: false }, ...DATABASE_OPTIONS],
  examples: [
    'cove server backup /var/backups/cove-$(date +%F).db',
    'cove server backup cove.db.bak --data-dir /var/lib/cove --force -o json',
  ],
  async run(context, args, options) {
    const output = args[0];
    if (!output) throw new CliError('Give the file to write the copy to.', { hint: 'See "cove server backup --help".' });
    let shown = -1;
    const report = await refusalsToCliErrors(context, options, (daemon, location) =>
      daemon.backupDatabase(location, output, {
        force: options['force'] === true,
        onProgress: ({ totalPages, remainingPages }) => {
          // Pages are 4 KiB: only a big database is worth a progress line.
          if (totalPages * 4096 < PROGRESS_FROM_BYTES || totalPages === 0) return;
          const percent = Math.floor(((totalPages - remainingPages) / totalPages) * 100);
          if (percent === shown) return;
          shown = percent;
          context.io.stderr.write(`Copied ${percent}% of ${totalPages} pages\n`);
        },
      }),
    );
    if (context.json) {
      printJson(context.io, {
        database: report.database,
        output: report.output,
        bytes: report.bytes,
        pages: report.pages,
        schema_version: report.schemaVersion,
        integrity: report.integrity,
        duration_ms: report.durationMs,
      });
      return 0;
    }
    context.say(`Backed up ${report.database} to ${report.output} (${report.bytes} bytes, schema ${report.schemaVersion}, integrity ok).`);
    return 0;
  },
};
