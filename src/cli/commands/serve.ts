import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { createAdminUserCommand } from './server-create-admin-user.js';
import { dbcryptCommand } from './server-dbcrypt.js';
import { backupCommand } from './server-backup.js';
import { restoreCommand } from './server-restore.js';

type DaemonModule = typeof import('../../daemon/index.js');

// The daemon (fastify, kysely, the drivers) loads only when `serve` runs or shows its help.
const loadDaemon = (): Promise<DaemonModule> => import('../../daemon/index.js');

/** `cove serve`: the daemon, with every setting of the option registry as a flag. */
export const serveCommand: CommandSpec = {
  name: 'serve',
  aliases: ['server'],
  summary: 'Run the Cove daemon',
  description:
    'Run the Cove daemon: the /api/v2 API, built-in provisioners and the agent relay. Every setting can ' +
    'also come from a COVE_* environment variable or a YAML file given with --config; flags win over the ' +
    'environment, which wins over the file.',
  examples: [
    'cove serve',
    'cove serve --http-address 0.0.0.0:3000 --access-url https://cove.example.com',
    'COVE_PG_CONNECTION_URL=postgres://cove@db/cove cove serve',
    'cove server create-admin-user --email admin@example.com --username admin',
  ],
  subcommands: [createAdminUserCommand, dbcryptCommand, backupCommand, restoreCommand],
  async configure(command: Command) {
    // Commander gives serve its own flags wherever they appear, so in `server create-admin-user
    // --data-dir X` serve takes the database flags: hand them on to the subcommand that uses them.
    command.hook('preSubcommand', (serve, subcommand) => {
      for (const key of ['postgresUrl', 'dataDir']) {
        const value: unknown = serve.getOptionValue(key);
        if (value !== undefined) subcommand.setOptionValue(key, value);
      }
    });
    const { OPTION_DEFINITIONS, describeDefault } = await loadDaemon();
    for (const definition of OPTION_DEFINITIONS) {
      // The global --verbose already exists; serve reads it from there.
      if (definition.key === 'verbose') continue;
      const value = definition.kind === 'bool' ? '[bool]' : '<value>';
      const flags = `${definition.flagShorthand ? `-${definition.flagShorthand}, ` : ''}--${definition.flag} ${value}`;
      const shownDefault = definition.secret ? '' : describeDefault(definition);
      const description = `${definition.description}\n[env: ${definition.env}${shownDefault ? `, default: ${shownDefault}` : ''}]`;
      const option = new Option(flags, description).helpGroup(`${definition.group.name}:`);
      if (definition.hidden) option.hideHelp();
      command.addOption(option);
    }
  },
  async run(context, _args, flags) {
    const daemon = await loadDaemon();
    const raw: Record<string, string> = {};
    for (const definition of daemon.OPTION_DEFINITIONS) {
      const value = definition.key === 'verbose' ? (context.global.verbose ? true : undefined) : flags[camel(definition.flag)];
      if (value !== undefined) raw[definition.key] = value === true ? 'true' : String(value);
    }
    const configPath = raw['configFile'] ?? context.io.env['COVE_CONFIG_PATH'];
    let resolved;
    try {
      resolved = daemon.resolveOptions({ flags: raw, env: context.io.env, yaml: configPath ? await readYaml(configPath) : undefined });
    } catch (error) {
      if (error instanceof daemon.OptionError) throw new CliError(error.message, { hint: 'See "cove serve --help".' });
      throw error;
    }
    const { values } = resolved;
    let logger;
    try {
      logger = daemon.createLogger({ human: values.logHuman, json: values.logJson, verbose: values.verbose, filter: values.logFilter });
    } catch (error) {
      throw new CliError(`cove serve cannot write its logs: ${error instanceof Error ? error.message : String(error)}`);
    }
    logger.debug({ log_human: values.logHuman, log_json: values.logJson, trace: values.traceEnable }, 'starting the daemon');
    // The SDK loads only when asked for: a daemon without traces pays nothing for them.
    const tracing = values.traceEnable ? (await import('../../daemon/tracing.js')).startTracing('cove') : undefined;
    let running;
    try {
      running = await daemon.startDaemon(resolved, { logger });
    } catch (error) {
      await tracing?.shutdown();
      throw new CliError(`cove serve could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
    await daemon.runUntilSignal(running, logger);
    await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'could not export the last traces'));
    return 0;
  },
};

async function readYaml(path: string): Promise<unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read the config file ${path}: ${(error as Error).message}`);
  }
  const { parse } = await import('yaml');
  try {
    return parse(text);
  } catch (error) {
    throw new CliError(`The config file ${path} is not valid YAML: ${(error as Error).message}`);
  }
}

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}
