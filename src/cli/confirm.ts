import { CliError } from './cli-error.js';
import type { CommandContext } from './command.js';
import { canPrompt, prompt } from './prompt.js';

/**
 * Asks a yes/no question on the terminal and throws a CliError unless the answer is yes. With
 * `yes` (the command's -y) nothing is asked; without a terminal the command stops and says to
 * pass -y, since a script cannot answer.
 */
export async function confirm(
  context: CommandContext,
  question: string,
  options: { readonly yes: boolean; readonly action: string; readonly canceled: string },
): Promise<void> {
  if (options.yes) return;
  if (!canPrompt(context.io)) throw new CliError(`${options.action} needs confirmation.`, { hint: 'Pass -y to go ahead without asking.' });
  const answer = await prompt(context.io, `${question} [y/N] `);
  if (!/^y(es)?$/i.test(answer.trim())) throw new CliError(`Canceled: ${options.canceled}.`);
}

/** The option that answers every question with yes. */
export const yesOption = { flags: '-y, --yes', description: 'Answer yes to every question', default: false } as const;
