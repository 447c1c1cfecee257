import { ApiError } from '../sdk/api-error.js';
import type { AssignableRole } from '../sdk/wire/index.js';
import { CliError } from './cli-error.js';

/**
 * Runs a call that gives roles; when the deployment refuses it and a role given is none of the
 * ones `known` lists, the error names the unknown ones and lists the valid ones instead of the
 * server's bare refusal. `where` ends the sentence ("on this deployment", "in organization x"),
 * looked up only then.
 */
export async function givingRoles<T>(
  call: () => Promise<T>,
  given: readonly string[],
  known: () => Promise<readonly AssignableRole[]>,
  where: () => Promise<string>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    const roles = await known().catch(() => undefined);
    if (roles === undefined) throw error;
    const names = new Set(roles.map((role) => role.name));
    const unknown = given.filter((name) => !names.has(name));
    if (unknown.length === 0) throw error;
    const quoted = unknown.map((name) => `"${name}"`).join(', ');
    // The server's own words when they already name the role; else a sentence that does.
    const message = unknown.every((name) => error.message.includes(`"${name}"`))
      ? error.message
      : `${quoted} ${unknown.length === 1 ? 'is not a role' : 'are not roles'} ${await where()}.`;
    throw new CliError(message, {
      hint: `Valid roles: ${roles
        .filter((role) => role.assignable)
        .map((role) => role.name)
        .join(', ')}.`,
    });
  }
}
