// The entry of the CLI's fast part (scripts/build.mjs): one CommonJS file, with V8's code cache
// (bin/cove), holding the commands that only talk to a deployment. A command it does not hold (the
// daemon, the agent, terminal views, anything that needs an ES-only package) runs from the full
// build instead, decided before anything runs, so the two builds never share an object.
import { exitQuietlyWhenOutputCloses } from './closed-output.js';
import { COMMANDS } from './command-table.js';
import { isGitAskpassCall } from './git-askpass-prompt.js';
import { main, requestedCommand } from './main.js';

/** The code of the error a module throws when the fast part does not hold it (scripts/build.mjs makes those stand-ins). */
export const NOT_IN_FAST_PART = 'COVE_NOT_IN_FAST_PART';

/**
 * Runs the CLI on `argv` from the fast part, or hands the whole run to `full` (which loads the full
 * build and runs it there) when the requested command is not part of it. Returns which ran.
 */
export async function runFast(argv: readonly string[], full: () => Promise<unknown>): Promise<'fast' | 'full'> {
  const args = argv.slice(2);
  if (isGitAskpassCall(args, process.env) || !(await holdsCommand(requestedCommand(args)))) {
    await full();
    return 'full';
  }
  exitQuietlyWhenOutputCloses();
  process.exitCode = await main(argv);
  return 'fast';
}

async function holdsCommand(name: string | undefined): Promise<boolean> {
  const entry = name === undefined ? undefined : COMMANDS.find((e) => e.name === name || e.aliases?.includes(name));
  if (entry === undefined) return true;
  try {
    await entry.load();
    return true;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === NOT_IN_FAST_PART) return false;
    throw error;
  }
}
