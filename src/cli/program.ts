import { Command, Option } from 'commander';
import { VERSION } from '../lib/version.js';
import { CommandContext, type CommandSpec, type GlobalOptions } from './command.js';
import type { CliIo } from './io.js';
import { parseColumnSelection, unknownColumn } from './output.js';

/**
 * The `cove` program with its global options and nothing else: `main` adds the commands (only the
 * one being run in full), `cove completion` all of them.
 */
export function newProgram(io: CliIo): Command {
  return new Command('cove')
    .description('Cove: self-hosted remote development workspaces.')
    .version(VERSION, '-V, --version', 'Print the version of cove')
    .option('--url <url>', 'Deployment URL (default: $COVE_URL, or the one saved by "cove login")')
    .option('--token <token>', 'Session token (default: $COVE_SESSION_TOKEN, or the one saved by "cove login")')
    .addOption(new Option('-o, --output <format>', 'Output format').choices(['table', 'json']).default('table'))
    .option('--verbose', 'Show debug details and stack traces', false)
    .option(
      '--request-timeout <duration>',
      'How long a request may take before the command fails, e.g. 10s or 2m; 0 waits for ever. Streams (logs --follow, watches) are not limited (default: $COVE_REQUEST_TIMEOUT, else 30s)',
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
  for (const option of spec.options ?? []) command.option(option.flags, option.description, option.default);
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
  };
}
