import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import type { CommandEntry } from '../command-entry.js';
import { commandTree } from '../command-tree.js';
import { COMPLETION_SHELLS, completionScript, type CompletionShell } from '../completion-scripts.js';

/**
 * `cove completion`: a shell completion script made from the command table. The table is handed in
 * by the table itself, which loads this command: importing it here would make a circle.
 */
export function completionCommandFor(commands: readonly CommandEntry[]): CommandSpec {
  return {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh or fish)',
    description:
      'Print a script that completes cove commands, subcommands and options in bash, zsh or fish. ' +
      'It is made from the commands of this cove, so make it again after an upgrade.',
    arguments: [{ name: 'shell', description: COMPLETION_SHELLS.join(', '), required: true }],
    examples: [
      'source <(cove completion bash)          # in ~/.bashrc',
      'source <(cove completion zsh)           # in ~/.zshrc, after compinit',
      'cove completion fish > ~/.config/fish/completions/cove.fish',
    ],
    async run(context, [shell = '']) {
      if (!COMPLETION_SHELLS.includes(shell as CompletionShell))
        throw new CliError(`cove completion knows no shell "${shell}".`, { hint: `Choose one of: ${COMPLETION_SHELLS.join(', ')}.` });
      context.io.stdout.write(completionScript(shell as CompletionShell, await commandTree(context.io, commands)));
      return 0;
    },
  };
}
