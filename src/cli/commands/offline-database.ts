import { HttpProblem } from '../../lib/errors.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, OptionSpec } from '../command.js';
import { printJson } from '../output.js';
import { stringOption } from './templates-common.js';

type DaemonModule = typeof import('../../daemon/index.js');
type OfflineUserResult = Awaited<ReturnType<DaemonModule['createAdminUser']>>;

/** Where the daemon's database is, named as `cove serve` names it. */
export const DATABASE_OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--postgres-url <url>',
    env: 'COVE_PG_CONNECTION_URL',
    description: 'PostgreSQL connection URL (default: $COVE_PG_CONNECTION_URL; else SQLite in the data directory)',
  },
  {
    flags: '--data-dir <dir>',
    env: 'COVE_DATA_DIR',
    description: "The daemon's data directory, which holds its SQLite database (default: $COVE_DATA_DIR, or serve's default)",
  },
];

/**
 * Runs a command that works on the daemon's database itself, with the daemon code loaded only
 * now: it reads the same flags and environment as `serve` to find the database, and turns the
 * database's and the rules' refusals into one clear line.
 */
export async function onDatabase<Result = OfflineUserResult>(
  context: CommandContext,
  options: Readonly<Record<string, unknown>>,
  work: (daemon: DaemonModule, location: Parameters<DaemonModule['createAdminUser']>[0]) => Promise<Result>,
): Promise<Result> {
  const daemon = await import('../../daemon/index.js');
  const postgresUrl = stringOption(options, 'postgresUrl');
  const dataDir = stringOption(options, 'dataDir');
  const location = { flags: { ...(postgresUrl ? { postgresUrl } : {}), ...(dataDir ? { dataDir } : {}) }, env: context.io.env };
  try {
    return await work(daemon, location);
  } catch (error) {
    if (error instanceof daemon.DatabaseUnavailableError)
      throw new CliError(error.message, { hint: 'Give the database with --postgres-url or --data-dir, as "cove serve" is given it.' });
    if (error instanceof daemon.OptionError) throw new CliError(error.message);
    if (error instanceof daemon.TokenKeysError) throw new CliError(error.message);
    if (error instanceof HttpProblem) {
      const details = [error.detail, ...(error.validations ?? []).map((v) => `${v.field}: ${v.detail}`)].filter(Boolean);
      throw new CliError(details.length > 0 ? `${error.message} ${details.join('; ')}` : error.message);
    }
    throw error;
  }
}

/** Prints what was done: the generated password on its own line for people, or everything under `-o json`. */
export function reportUser(context: CommandContext, result: OfflineUserResult, done: string): void {
  const { user, generatedPassword } = result;
  if (context.json) {
    printJson(context.io, {
      id: user.id,
      username: user.username,
      email: user.email,
      roles: JSON.parse(user.rbac_roles) as string[],
      ...(generatedPassword ? { password: generatedPassword } : {}),
    });
    return;
  }
  context.say(done);
  if (generatedPassword) {
    context.say(`Password: ${generatedPassword}`);
    context.say('Keep it safe: it is shown only now. Sign in with "cove login" and change it.');
  }
}
