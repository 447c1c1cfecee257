import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { newId } from '../../lib/random.js';
import { dialProvisionerDaemon } from '../../sdk/provisioner-daemon-socket.js';
import type { ProvisionerDaemon, ProvisionerKey } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import { confirm } from '../confirm.js';
import type { CommandContext, CommandSpec } from '../command.js';
import type { CliIo } from '../io.js';
import { humanTime, printJson } from '../output.js';
import { provisionerJobsCommand } from './provisioner-jobs.js';
import { listOption, orgOption, parsePairs, repeatableOptions, stringOption } from './templates-common.js';

type Provisioners = ReturnType<(typeof import('../../daemon/builtin-provisioners.js'))['provisionerKinds']>;
type RunnerLogger = Parameters<(typeof import('../../provisioner/runner/index.js'))['startProvisionerDaemon']>[0]['logger'];

/** Tags as people write them; the `owner` the server adds to organization-wide tags is empty and left out. */
function describeTags(tags: Readonly<Record<string, string>>): string {
  return Object.entries(tags)
    .filter(([key, value]) => !(key === 'owner' && value === ''))
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

const DAEMON_COLUMNS = [
  { heading: 'name', value: (d: ProvisionerDaemon) => d.name },
  { heading: 'status', value: (d: ProvisionerDaemon) => d.status },
  { heading: 'key', value: (d: ProvisionerDaemon) => d.key_name ?? '' },
  { heading: 'provisioners', value: (d: ProvisionerDaemon) => d.provisioners.join(',') },
  { heading: 'tags', value: (d: ProvisionerDaemon) => describeTags(d.tags) },
  { heading: 'last seen', value: (d: ProvisionerDaemon) => humanTime(d.last_seen_at) },
  { heading: 'version', value: (d: ProvisionerDaemon) => d.version },
];

const KEY_COLUMNS = [
  { heading: 'name', value: (k: ProvisionerKey) => k.name },
  { heading: 'tags', value: (k: ProvisionerKey) => describeTags(k.tags) },
  { heading: 'created at', value: (k: ProvisionerKey) => humanTime(k.created_at) },
];

const startCommand: CommandSpec = {
  name: 'start',
  summary: 'Run a provisioner daemon in the foreground',
  description:
    'Run a provisioner daemon here, serving the jobs of a deployment (--url, or the one you signed in ' +
    'to) whose tags it satisfies. It authenticates with a provisioner key (--key or $COVE_PROVISIONER_KEY), ' +
    'whose tags it takes, or else with your session: then it serves only your own jobs unless you may ' +
    'administer the organization. Stops on SIGINT or SIGTERM, canceling a running job.',
  options: [
    orgOption,
    {
      flags: '--key <key>',
      env: 'COVE_PROVISIONER_DAEMON_KEY',
      description: 'Provisioner key (default: $COVE_PROVISIONER_KEY; else your session)',
    },
    {
      flags: '--name <name>',
      env: 'COVE_PROVISIONER_DAEMON_NAME',
      description: 'Name shown in "cove provisioner list" (default: the host name)',
    },
    {
      flags: '-c, --cache-dir <dir>',
      env: 'COVE_CACHE_DIRECTORY',
      description: 'Where jobs unpack templates (default: $COVE_CACHE_DIR or ~/.cache/cove)',
    },
    {
      flags: '--trace',
      env: 'COVE_TRACE_ENABLE',
      description: "Export traces of the jobs over OTLP/HTTP, to the OTEL_* variables' collector, in the traces of the deployment's jobs",
    },
  ],
  configure: async (command: Command) => {
    await repeatableOptions([
      {
        flags: '-t, --tag <key=value>',
        description: 'Serve jobs with this tag (repeatable; a key has its own tags)',
        env: 'COVE_PROVISIONERD_TAGS',
      },
      { flags: '--provisioner <kind>', description: 'native, echo or terraform (repeatable; default: all of them)' },
    ])(command);
    // For tests and one-shot runs: stop once this many jobs are done, as a signal would.
    command.addOption(new Option('--exit-after-jobs <count>', 'Stop after this many jobs').hideHelp());
  },
  examples: [
    'cove provisioner start --key "$KEY" --name gpu-1',
    'COVE_PROVISIONER_KEY=... cove provisioner start --url https://cove.example.com',
  ],
  async run(context, _args, options) {
    const url = context.deploymentUrl();
    const organization = String(options['org']);
    const key = stringOption(options, 'key') ?? context.io.env['COVE_PROVISIONER_KEY'];
    const sessionToken = key ? undefined : await context.sessionToken(url);
    if (!key && !sessionToken) {
      throw new CliError(`No provisioner key and no session for ${url}.`, {
        hint: 'Pass --key (see "cove provisioner keys create"), or run "cove login" first.',
      });
    }
    const exitAfterJobs = positiveInteger(options['exitAfterJobs'], '--exit-after-jobs');
    const name = stringOption(options, 'name') ?? hostname();
    const provisioners = await chooseProvisioners(listOption(options, 'provisioner'));
    const daemonId = stableDaemonId(context.configDir, `${url} ${organization} ${name}`);
    const identity = {
      url,
      organization,
      id: daemonId.id,
      name,
      tags: parsePairs(listOption(options, 'tag'), '--tag'),
      ...(key ? { key } : { sessionToken }),
    };
    await checkCredentials({ ...identity, provisioners: [...provisioners.keys()] });
    daemonId.save();

    // The SDK loads only when asked for.
    const tracing = options['trace'] === true ? (await import('../../daemon/tracing.js')).startTracing('cove-provisionerd') : undefined;
    const { startProvisionerDaemon } = await import('../../provisioner/runner/index.js');
    const logger = stderrLogger(context.io);
    const daemon = startProvisionerDaemon({
      ...identity,
      provisioners,
      workDirectory: join(cacheDir(context, options), 'provisioner'),
      logger,
    });
    logger.info(
      { id: identity.id, organization, provisioners: [...provisioners.keys()].join(','), ...(key ? {} : { auth: 'session' }) },
      `provisioner daemon "${name}" started; stop it with Ctrl+C`,
    );
    await runUntilStopped(daemon, logger, exitAfterJobs);
    await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'could not export the last traces'));
    return 0;
  },
};

/** The provisioners asked for, or all this build has. */
async function chooseProvisioners(wanted: readonly string[]): Promise<Provisioners> {
  const { provisionerKinds } = await import('../../daemon/builtin-provisioners.js');
  const all = provisionerKinds();
  if (wanted.length === 0) return all;
  const unknown = wanted.filter((kind) => !all.has(kind));
  if (unknown.length > 0)
    throw new CliError(`Unknown provisioner ${unknown.join(', ')}.`, { hint: `Choose from ${[...all.keys()].join(', ')}.` });
  return new Map(wanted.map((kind) => [kind, all.get(kind)!]));
}

/**
 * Dials once before starting, so a bad key or an unknown organization fails the command at once
 * instead of being retried forever. A deployment that cannot be reached yet is retried.
 */
async function checkCredentials(identity: Parameters<typeof dialProvisionerDaemon>[0]): Promise<void> {
  try {
    const socket = await dialProvisionerDaemon(identity);
    socket.close(1000, 'checked credentials');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message.startsWith('the daemon refused')) throw new CliError(`${message[0]?.toUpperCase()}${message.slice(1)}.`);
  }
}

/** Runs until SIGINT or SIGTERM (a second one exits at once), or until `exitAfterJobs` jobs are done. */
async function runUntilStopped(
  daemon: { waitForJobs(count: number): Promise<void>; stop(): Promise<void> },
  logger: RunnerLogger,
  exitAfterJobs: number | undefined,
): Promise<void> {
  let stopping: Promise<void> | undefined;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  const stop = (reason: string): void => {
    if (stopping) return;
    logger.info({ reason }, 'stopping the provisioner daemon');
    stopping = daemon.stop().finally(stopped);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stop(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (exitAfterJobs !== undefined) void daemon.waitForJobs(exitAfterJobs).then(() => stop(`${exitAfterJobs} jobs done`));
    await done;
    logger.info({}, 'provisioner daemon stopped');
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** One line per event on standard error: time, level, message, then the fields as key=value. */
function stderrLogger(io: CliIo): RunnerLogger {
  const write = (level: string) => (fields: Record<string, unknown>, message: string) => {
    const extra = Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${formatField(value)}`)
      .join(' ');
    io.stderr.write(`${new Date().toISOString()} ${level} ${message}${extra ? ` ${extra}` : ''}\n`);
  };
  return { info: write('INFO'), warn: write('WARN'), error: write('ERROR') };
}

function formatField(value: unknown): string {
  const text = value instanceof Error ? value.message : typeof value === 'string' ? value : JSON.stringify(value);
  return /[\s"]/.test(text) ? JSON.stringify(text) : text;
}

/**
 * The id this daemon had the last time it ran with the same deployment, organization and name,
 * so a restart updates its row in "cove provisioner list" instead of adding another. A new id is
 * kept only once `save` is called, after the deployment accepted the daemon.
 */
function stableDaemonId(configDir: string, slot: string): { readonly id: string; save(): void } {
  const path = join(configDir, 'provisioner-daemons.json');
  let ids: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof parsed === 'object' && parsed !== null) ids = parsed as Record<string, string>;
  } catch {
    // Missing or unreadable: start a new map.
  }
  const known = ids[slot];
  if (known) return { id: known, save: () => undefined };
  const id = newId();
  return {
    id,
    save: () => {
      mkdirSync(configDir, { recursive: true, mode: 0o700 });
      writeFileSync(path, `${JSON.stringify({ ...ids, [slot]: id }, null, 2)}\n`, { mode: 0o600 });
    },
  };
}

function cacheDir(context: CommandContext, options: Readonly<Record<string, unknown>>): string {
  const env = context.io.env;
  return stringOption(options, 'cacheDir') ?? env['COVE_CACHE_DIR'] ?? join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'cove');
}

function positiveInteger(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count <= 0) throw new CliError(`${flag} takes a positive whole number, not "${String(value)}".`);
  return count;
}

const keysCommand: CommandSpec = {
  name: 'keys',
  aliases: ['key'],
  summary: 'Create, list and delete provisioner keys',
  subcommands: [
    {
      name: 'create',
      summary: 'Create a provisioner key and print it (once)',
      arguments: [{ name: 'name', description: 'Key name', required: true }],
      options: [orgOption],
      configure: repeatableOptions([
        { flags: '-t, --tag <key=value>', description: 'Daemons using the key serve jobs with this tag (repeatable)' },
      ]),
      examples: ['cove provisioner keys create gpu --tag pool=gpu'],
      async run(context, [name = ''], options) {
        const tags = parsePairs(listOption(options, 'tag'), '--tag');
        const { key } = await (await context.client()).createProvisionerKey(String(options['org']), { name, tags });
        if (context.json) {
          printJson(context.io, { key });
          return 0;
        }
        context.io.stdout.write(`${key}\n`);
        context.io.stderr.write(
          `Keep this key safe: it will not be shown again. Start a daemon with "cove provisioner start --key <key>".\n`,
        );
        return 0;
      },
    },
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'List provisioner keys',
      options: [orgOption],
      columns: KEY_COLUMNS,
      async run(context, _args, options) {
        context.printData(await (await context.client()).provisionerKeys(String(options['org'])), KEY_COLUMNS);
        return 0;
      },
    },
    {
      name: 'delete',
      aliases: ['rm'],
      summary: 'Delete a provisioner key; daemons using it can no longer connect',
      arguments: [{ name: 'name', description: 'Key name', required: true }],
      options: [orgOption, { flags: '-y, --yes', description: 'Delete without asking', default: false }],
      async run(context, [name = ''], options) {
        const client = await context.client();
        await confirm(context, `Delete provisioner key "${name}"? Daemons using it can no longer connect.`, {
          yes: options['yes'] === true,
          action: `Deleting provisioner key "${name}"`,
          canceled: 'nothing was deleted',
        });
        await client.deleteProvisionerKey(String(options['org']), name);
        if (context.json) printJson(context.io, { name, deleted: true });
        else context.say(`Deleted provisioner key "${name}".`);
        return 0;
      },
    },
  ],
};

/** `cove provisioner`: provisioner daemons and their keys. */
export const provisionerCommand: CommandSpec = {
  name: 'provisioner',
  aliases: ['provisioners'],
  summary: 'Run provisioner daemons, manage their keys and their jobs',
  subcommands: [
    startCommand,
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'List the provisioner daemons of an organization',
      options: [orgOption],
      columns: DAEMON_COLUMNS,
      async run(context, _args, options) {
        context.printData(await (await context.client()).provisionerDaemons(String(options['org'])), DAEMON_COLUMNS);
        return 0;
      },
    },
    keysCommand,
    provisionerJobsCommand,
  ],
};
