import pty from 'node-pty';
import { COVE_BIN } from './repository-root.js';

/**
 * bin/cove on a terminal of its own, with `configDir` as its configuration (and `extraEnv` added to
 * its environment): what it printed since the last wait, and typing answers. CI is left out of its environment, since the CLI treats CI as
 * a place where nobody answers.
 */
export class CliTerminal {
  #output = '';
  #seen = 0;
  readonly exited: Promise<number>;
  readonly #terminal: pty.IPty;

  constructor(configDir: string, args: readonly string[], extraEnv: Readonly<Record<string, string>> = {}) {
    const { CI: _ci, ...rest } = process.env;
    const env = { ...rest, COVE_CONFIG_DIR: configDir, COVE_SECRET_STORE: 'file', ...extraEnv };
    this.#terminal = pty.spawn(COVE_BIN, [...args], { cols: 120, rows: 30, env });
    this.#terminal.onData((data) => (this.#output += data));
    this.exited = new Promise((resolvePromise) => this.#terminal.onExit(({ exitCode }) => resolvePromise(exitCode)));
  }

  /** Waits until what was printed since the last wait matches `pattern`, and returns that part. */
  async expect(pattern: RegExp): Promise<string> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const fresh = this.#output.slice(this.#seen);
      const match = pattern.exec(fresh);
      if (match) {
        this.#seen += match.index + match[0].length;
        return fresh.slice(0, match.index + match[0].length);
      }
      if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in:\n${fresh}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  answer(text: string): void {
    this.#terminal.write(`${text}\r`);
  }

  get output(): string {
    return this.#output;
  }
}
