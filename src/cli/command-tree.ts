import type { Command } from 'commander';
import type { CommandEntry } from './command-entry.js';
import type { CliIo } from './io.js';
import { newProgram, registerCommand } from './program.js';

/** An option as a shell completes it. */
export interface OptionNode {
  /** `-o` and `--output`, as given. */
  readonly flags: readonly string[];
  readonly description: string;
  /** Whether the next word is the option's value. */
  readonly takesValue: boolean;
  /** The values it takes, when it names them. */
  readonly choices: readonly string[];
}

/** A command as a shell completes it: its names, options (global ones included) and subcommands. */
export interface CommandNode {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly options: readonly OptionNode[];
  readonly subcommands: readonly CommandNode[];
}

/**
 * Every command with its subcommands and options, read from the program `main` would build with
 * all of them loaded: the command table (`commands`) is the one source, options added by
 * `configure` included. The table is handed in, since its completion command calls this.
 */
export async function commandTree(io: CliIo, commands: readonly CommandEntry[]): Promise<CommandNode> {
  const program = newProgram(io);
  for (const entry of commands) await registerCommand(program, await entry.load(), io, () => undefined);
  const globals = optionsOf(program);
  // Global options are taken after any command too; --version only on its own.
  const inherited = [...globals.filter((option) => !option.flags.includes('--version')), helpOption()];
  const toNode = (command: Command, options: readonly OptionNode[]): CommandNode => ({
    name: command.name(),
    aliases: command.aliases(),
    summary: command.summary() || command.description(),
    options,
    subcommands: command.commands.map((sub) => toNode(sub, [...optionsOf(sub), ...inherited])),
  });
  return toNode(program, [...globals, helpOption()]);
}

function optionsOf(command: Command): OptionNode[] {
  return command.options.map((option) => ({
    flags: [option.short, option.long].filter((flag): flag is string => typeof flag === 'string'),
    description: option.description,
    takesValue: option.required || option.optional,
    choices: option.argChoices ?? [],
  }));
}

function helpOption(): OptionNode {
  return { flags: ['-h', '--help'], description: 'Show help for the command', takesValue: false, choices: [] };
}
