import { createInterface } from 'node:readline';
import type { CliIo } from './io.js';

/** Whether the CLI may ask questions: only when a person is at a terminal. */
export function canPrompt(io: CliIo): boolean {
  return io.stdin.isTTY === true && io.env['CI'] !== 'true';
}

/** Asks one question on the terminal; with `secret`, typed characters are not echoed. */
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
    return await new Promise<string>((resolve) => rl.question(question, resolve));
  } finally {
    if (options.secret) io.stderr.write('\n');
    rl.close();
  }
}
