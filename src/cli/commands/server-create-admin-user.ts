import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { DATABASE_OPTIONS, onDatabase, reportUser } from './offline-database.js';
import { stringOption } from './templates-common.js';

/** `cove server create-admin-user`: a way back in, written straight to the daemon's database. */
export const createAdminUserCommand: CommandSpec = {
  name: 'create-admin-user',
  summary: 'Create a site owner directly in the database (for when nobody can sign in)',
  description:
    "Creates an active password user who owns the site and belongs to every organization, working on the daemon's " +
    'database itself (the SQLite file in the data directory, or PostgreSQL): for a deployment where no ' +
    'administrator can sign in. Run it while the daemon is stopped. Without --password a strong password is ' +
    'generated and printed once. On a deployment with no users yet, this user is its first user.',
  options: [
    { flags: '--email <email>', env: 'COVE_EMAIL', description: 'Email address of the new user (required)' },
    { flags: '--username <username>', env: 'COVE_USERNAME', description: 'Username of the new user (required)' },
    {
      flags: '--password <password>',
      env: 'COVE_PASSWORD',
      description: 'Password of the new user (default: a generated one, printed; or $COVE_PASSWORD)',
    },
    ...DATABASE_OPTIONS,
  ],
  examples: [
    'cove server create-admin-user --email admin@example.com --username admin',
    'cove server create-admin-user --email admin@example.com --username admin --data-dir /var/lib/cove',
    'cove server create-admin-user --email a@example.com --username a --postgres-url postgres://cove@db/cove -o json',
  ],
  async run(context, _args, options) {
    const email = stringOption(options, 'email');
    const username = stringOption(options, 'username');
    if (!email || !username)
      throw new CliError('--email and --username are required.', { hint: 'See "cove server create-admin-user --help".' });
    const password = stringOption(options, 'password') ?? (context.io.env['COVE_PASSWORD'] || undefined);
    const result = await onDatabase(context, options, (daemon, location) =>
      daemon.createAdminUser(location, { email, username, password }),
    );
    reportUser(context, result, `Created the site owner "${result.user.username}" (${result.user.email}).`);
    return 0;
  },
};
