import type { CommandSpec } from '../command.js';
import { DATABASE_OPTIONS, onDatabase, reportUser } from './offline-database.js';
import { stringOption } from './templates-common.js';

/** `cove reset-password`: a user's new password, written straight to the daemon's database. */
export const resetPasswordCommand: CommandSpec = {
  name: 'reset-password',
  summary: "Set a user's password directly in the daemon's database",
  description:
    "Sets the password of a password user, working on the daemon's database itself (the SQLite file in the data " +
    'directory, or PostgreSQL), and ends all of their sessions: for a user who cannot sign in to change it. Run ' +
    'it while the daemon is stopped. Without --password a strong password is generated and printed once.',
  arguments: [{ name: 'username', description: 'The user whose password to set', required: true }],
  options: [
    { flags: '--password <password>', description: 'The new password (default: a generated one, printed; or $COVE_PASSWORD)' },
    ...DATABASE_OPTIONS,
  ],
  examples: [
    'cove reset-password alice',
    'cove reset-password alice --data-dir /var/lib/cove',
    'COVE_PASSWORD=... cove reset-password alice --postgres-url postgres://cove@db/cove',
  ],
  async run(context, [username = ''], options) {
    const password = stringOption(options, 'password') ?? (context.io.env['COVE_PASSWORD'] || undefined);
    const result = await onDatabase(context, options, (daemon, location) => daemon.resetUserPassword(location, { username, password }));
    reportUser(context, result, `Set a new password for "${result.user.username}"; their sessions have ended.`);
    return 0;
  },
};
