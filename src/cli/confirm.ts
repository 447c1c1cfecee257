import { CliError } from './cli-error.js';
import type { CommandContext } from './command.js';
import { canPrompt, prompt } from './prompt.js';

/** What a confirmation is about, and how its refusal and cancellation read. */
export interface ConfirmOptions {
  /** The command's -y/--yes: nothing is asked. */
  readonly yes: boolean;
  /** What needs confirming, as the subject of "… needs confirmation" ("Deleting organization "x""). */
  readonly action: string;
  /** What stayed as it was when the answer is no ("nothing was deleted"). */
  readonly canceled: string;
  /**
   * The effect can be undone (stopping, restarting, creating): without a terminal the command goes
   * ahead instead of refusing, since a script already said what it wants with its flags.
   */
  readonly undoable?: boolean;
  /** The question's default answer on a bare Enter: no unless said (creations offer yes). */
  readonly defaultYes?: boolean;
  /** What to do instead when the command refuses without a terminal (default: pass -y). */
  readonly hint?: string;
}

/**
 * The one confirmation rule of the CLI (docs/cli.md, "Confirmations"): with -y nothing is asked; on a
 * terminal the question is asked and anything but yes cancels; without a terminal a command whose
 * effect cannot be undone stops and says to pass -y, and one whose effect can be undone goes ahead.
 */
export async function confirm(context: CommandContext, question: string, options: ConfirmOptions): Promise<void> {
  if (options.yes) return;
  if (!canPrompt(context.io)) {
    if (options.undoable === true) return;
    throw new CliError(`${options.action} needs confirmation.`, { hint: options.hint ?? 'Pass -y to go ahead without asking.' });
  }
  const answer = (await prompt(context.io, `${question} ${options.defaultYes === true ? '[Y/n]' : '[y/N]'} `)).trim();
  const agreed = options.defaultYes === true ? !/^n(o)?$/i.test(answer) : /^y(es)?$/i.test(answer);
  if (!agreed) throw new CliError(`Canceled: ${options.canceled}.`);
}

/** The option that answers every question with yes. */
export const yesOption = { flags: '-y, --yes', description: 'Answer yes to every question', default: false } as const;
