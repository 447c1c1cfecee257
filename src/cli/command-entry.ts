import type { CommandSpec } from './command.js';

/**
 * A top-level command: what `cove --help` lists, and how to load the rest when it runs. Declared
 * apart from the table so what reads the table (the completion tree) need not import it.
 */
export interface CommandEntry {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly summary: string;
  readonly load: () => Promise<CommandSpec>;
}
