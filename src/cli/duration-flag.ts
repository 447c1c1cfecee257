import { missingUnit, parseDuration } from '../lib/duration.js';
import { CliError } from './cli-error.js';

/**
 * Reads a duration typed on the command line for `what` (a flag, or what an argument is). A bare
 * number other than 0 is refused with what to write instead, never read as milliseconds; other
 * text that is not a duration gives undefined, for the command's own message.
 */
export function readDurationFlag(text: string, what: string): number | undefined {
  const problem = missingUnit(text);
  if (problem !== undefined) throw new CliError(`${what}: ${problem}.`);
  return parseDuration(text, 'refused');
}
