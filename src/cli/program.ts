import type { EventEmitter } from 'node:events';
import { Command, Option } from 'commander';
import { VERSION } from '../lib/version.js';
import { CommandContext, type CommandSpec, type GlobalOptions } from './command.js';
import { applyClientTls } from './client-tls-files.js';
import type { CliIo } from './io.js';
import { isListOption, listOption, splitCommaList } from './list-options.js';
import { parseColumnSelection, unknownColumn } from './output.js';

/**
 * The `cove` program with its global options and nothing else: `main` adds the commands (only the
 * one being run in full), `cove completion` all of them.
 */
export function newProgram(io: CliIo): Command {
  return new EnvCommand(io.env, 'cove')
    .description('Cove: self-hosted remote development workspaces.')
    .version(VERSION, '-V, --version', 'Print the version of cove')
    .option('--url <url>', 'Deployment URL (default: $COVE_URL, or the one saved by "cove login")')
    .option('--token <token>', 'Session token (default: $COVE_SESSION_TOKEN, or the one saved by "cove login")')
    .addOption(new Option('-o, --output <format>', 'Output format').choices(['table', 'json']).default('table'))
    .addOption(new Option('-v, --verbose', 'Show debug details and stack traces').default(false).env('COVE_VERBOSE'))
    .option(
      '--request-timeout <duration>',
      'How long a request may take before the command fails, e.g. 10s or 2m; 0 waits for ever. Streams (logs --follow, watches) are not limited (default: $COVE_REQUEST_TIMEOUT, else 30s)',
    )
    .addOption(
      listOption(
        new Option(
          '--header <header>',
          'An HTTP header added to every request, streams and WebSockets included, as Name=value or "Name: value"; repeatable (the variable takes a comma-separated list)',
        ),
      ).env('COVE_HEADER'),
    )
    .addOption(
      new Option(
        '--header-command <command>',
        'A shell command whose output lines (Name=value or "Name: value") are headers added to every request',
      ).env('COVE_HEADER_COMMAND'),
    )
    .addOption(
      new Option(
        '--global-config <dir>',
        'The directory where cove keeps its config and credentials (default: $XDG_CONFIG_HOME/cove, else ~/.config/cove)',
      ).env('COVE_CONFIG_DIR'),
    )
    .addOption(
      new Option(
        '--client-tls-ca-file <file>',
        "PEM certificate of a CA to trust for the deployment's HTTPS, beside the public ones built in (a private CA)",
      ).env('COVE_CLIENT_TLS_CA_FILE'),
    )
    .addOption(
      new Option('--client-tls-cert-file <file>', 'PEM client certificate to present to a deployment that asks for one').env(
        'COVE_CLIENT_TLS_CERT_FILE',
      ),
    )
    .addOption(new Option('--client-tls-key-file <file>', 'PEM key of --client-tls-cert-file').env('COVE_CLIENT_TLS_KEY_FILE'))
    .addOption(
      new Option('--no-version-warning', 'Do not warn when this cove and the deployment run different versions').env(
        'COVE_NO_VERSION_WARNING',
      ),
    )
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
}

/** Adds a command declared as data (and its subcommands) to `parent`; its run's exit code goes to `setExit`. */
export async function registerCommand(
  parent: Command,
  spec: CommandSpec,
  io: CliIo,
  setExit: (code: number | void) => void,
): Promise<void> {
  const command = parent
    .command(spec.name)
    .summary(spec.summary)
    .description(spec.description ?? spec.summary);
  for (const alias of spec.aliases ?? []) command.alias(alias);
  for (const argument of spec.arguments ?? []) {
    const name = `${argument.name}${argument.variadic ? '...' : ''}`;
    command.argument(argument.required ? `<${name}>` : `[${name}]`, argument.description);
  }
  for (const option of spec.options ?? []) {
    const added = new Option(option.flags, option.description);
    if (option.default !== undefined) added.default(option.default);
    if (option.env !== undefined) added.env(option.env);
    command.addOption(added);
  }
  const columnNames = spec.columns?.map((column) => column.heading) ?? [];
  if (spec.columns) {
    const quoted = (names: readonly string[]) => names.map((name) => (name.includes(' ') ? `"${name}"` : name)).join(', ');
    const shown = spec.columns.filter((column) => column.hidden !== true).map((column) => column.heading);
    command.option(
      '-c, --column <columns>',
      `Columns to show, comma-separated (repeatable), from: ${quoted(columnNames)} (default: ${quoted(shown)})`,
      (value: string, previous: readonly string[] | undefined) => [...(previous ?? []), value],
    );
  }
  if (spec.examples?.length) command.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}\n`);
  if (spec.configure) await spec.configure(command);
  for (const sub of spec.subcommands ?? []) await registerCommand(command, sub, io, setExit);
  const run = spec.run;
  if (run) {
    command.action(async (...actionArgs: unknown[]) => {
      const self = actionArgs.at(-1) as Command;
      const options = self.opts<Record<string, unknown>>();
      const variadic = spec.arguments?.at(-1)?.variadic === true;
      const positional = variadic ? self.args : self.args.slice(0, spec.arguments?.length ?? 0);
      const columns = parseColumnSelection(options['column']);
      // Checked before anything runs, so a typo never costs a build or a request.
      const unknown = columns?.find((name) => !columnNames.includes(name));
      if (unknown !== undefined) throw unknownColumn(unknown, columnNames);
      const context = new CommandContext(io, globalOptions(self.optsWithGlobals<Record<string, unknown>>()), columns);
      applyClientTls(context.global);
      setExit(await run(context, positional, options));
    });
  }
}

function globalOptions(all: Readonly<Record<string, unknown>>): GlobalOptions {
  return {
    url: typeof all['url'] === 'string' ? all['url'] : undefined,
    token: typeof all['token'] === 'string' ? all['token'] : undefined,
    output: all['output'] === 'json' ? 'json' : 'table',
    verbose: all['verbose'] === true,
    requestTimeout: typeof all['requestTimeout'] === 'string' ? all['requestTimeout'] : undefined,
    headers: Array.isArray(all['header']) ? all['header'].filter((value): value is string => typeof value === 'string') : [],
    headerCommand: typeof all['headerCommand'] === 'string' ? all['headerCommand'] : undefined,
    globalConfig: typeof all['globalConfig'] === 'string' && all['globalConfig'] !== '' ? all['globalConfig'] : undefined,
    versionWarning: all['versionWarning'] !== false,
    clientTlsCaFile: stringOption(all['clientTlsCaFile']),
    clientTlsCertFile: stringOption(all['clientTlsCertFile']),
    clientTlsKeyFile: stringOption(all['clientTlsKeyFile']),
  };
}

/** A text option's value; undefined when absent or empty. */
function stringOption(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Adds a repeated option's value to the ones before it. */
/** What a boolean option's variable says: set unless empty, 0, false, no or off. */
function truthy(value: string): boolean {
  return !['', '0', 'false', 'no', 'off'].includes(value.trim().toLowerCase());
}

/**
 * A command whose options' variables (Option.env) are read from the CLI's own environment rather
 * than process.env, so in-process runs (tests) see theirs; a flag on the command line wins over its
 * variable, as with commander's own handling. A boolean's variable must say true (COVE_VERBOSE=false
 * leaves it off); a list option's variable is split on commas.
 */
class EnvCommand extends Command {
  readonly #env: Readonly<Record<string, string | undefined>>;

  constructor(env: Readonly<Record<string, string | undefined>>, name?: string) {
    super(name);
    this.#env = env;
  }

  override createCommand(name?: string): Command {
    return new EnvCommand(this.#env, name);
  }

  /** Replaces commander's reading of process.env (called once per command as it parses). */
  _parseOptionsEnv(): void {
    for (const option of this.options) {
      const text = option.envVar === undefined ? undefined : this.#env[option.envVar];
      if (text === undefined) continue;
      const key = option.attributeName();
      const source = this.getOptionValueSource(key);
      if (this.getOptionValue(key) !== undefined && source !== undefined && !['default', 'config', 'env'].includes(source)) continue;
      const event = `optionEnv:${option.name()}`;
      // Command is an EventEmitter; its typings leave that out.
      const emitter = this as unknown as EventEmitter;
      if (!option.required && !option.optional) {
        if (truthy(text)) emitter.emit(event);
      } else if (isListOption(option)) {
        for (const item of splitCommaList(text)) emitter.emit(event, item);
      } else {
        emitter.emit(event, text);
      }
    }
  }
}
