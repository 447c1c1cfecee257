import { createInterface } from 'node:readline';
import type { CliIo } from './io.js';
import { CliError } from './cli-error.js';

/** Whether the CLI may ask questions: only when a person is at a terminal. */
export function canPrompt(io: CliIo): boolean {
  return io.stdin.isTTY === true && io.env['CI'] !== 'true';
}

/**
 * Asks one question on the terminal; with `secret`, typed characters are not echoed. Input that
 * ends before the answer (Ctrl+D) is an error rather than a command left waiting for ever.
 */
export async function prompt(io: CliIo, question: string, options: { readonly secret?: boolean } = {}): Promise<string> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  if (options.secret) {
    const writer = rl as unknown as { _writeToOutput: (text: string) => void };
    let shownPrompt = false;
    writer._writeToOutput = (text: string) => {
      if (!shownPrompt) {
        io.stderr.write(text);
        shownPrompt = true;
      }
    };
  }
  try {
    return await new Promise<string>((resolve, reject) => {
      let answered = false;
      rl.once('close', () => {
        if (!answered) reject(new CliError('The input ended before the question was answered.'));
      });
      rl.question(question, (answer) => {
        answered = true;
        resolve(answer);
      });
    });
  } finally {
    if (options.secret) io.stderr.write('\n');
    rl.close();
  }
}

/**
 * Asks until the answer passes `check` (which returns what is wrong, or undefined), saying what was
 * wrong before each new try, as the reference's prompts do: one typo never ends a long sign-up.
 * An empty answer takes `defaultValue` when there is one (shown in the question).
 */
export async function askUntilValid(
  io: CliIo,
  question: string,
  check: (answer: string) => string | undefined,
  options: { readonly secret?: boolean; readonly defaultValue?: string | undefined } = {},
): Promise<string> {
  const shown = options.defaultValue ? `${question.replace(/:\s*$/, '')} (${options.defaultValue}): ` : question;
  for (;;) {
    const typed = (await prompt(io, shown, { secret: options.secret === true })).trim();
    const answer = typed === '' && options.defaultValue ? options.defaultValue : typed;
    const problem = check(answer);
    if (problem === undefined) return answer;
    io.stderr.write(`${problem}\n`);
  }
}
