import { resolve } from 'node:path';
import { singleExecutablePath } from '../lib/single-executable.js';

/**
 * The executable git should run as GIT_ASKPASS to reach this cove: the single executable itself,
 * or the `bin/cove` script this process was started with (`node bin/cove agent`, as the process
 * compute starts agents). git runs the program with the prompt as its only argument, so it must be
 * an executable, not a command line. Undefined when neither is known.
 */
export function gitAskpassProgram(scriptPath: string | undefined = process.argv[1]): string | undefined {
  const single = singleExecutablePath();
  if (single !== undefined) return single;
  return scriptPath === undefined || scriptPath === '' ? undefined : resolve(scriptPath);
}
