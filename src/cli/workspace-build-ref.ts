import { ApiError } from '../sdk/api-error.js';
import type { CoveClient } from '../sdk/client.js';
import type { Workspace, WorkspaceBuild } from '../sdk/wire/index.js';
import { CliError } from './cli-error.js';

/**
 * The build a `--build` option names: the latest when it is not given (or 0), build number N when
 * it is positive, and N builds before the latest when it is negative (-1 is the one before).
 */
export async function pickBuild(client: CoveClient, workspace: Workspace, given: unknown, label: string): Promise<WorkspaceBuild> {
  if (given === undefined) return workspace.latest_build;
  const text = String(given).trim();
  if (!/^-?\d+$/.test(text))
    throw new CliError(`"${text}" is not a build number.`, { hint: 'Give a build number, or -1 for the one before the latest.' });
  const asked = Number(text);
  const latest = workspace.latest_build.build_number;
  const number = asked < 0 ? latest + asked : asked === 0 ? latest : asked;
  if (number < 1) throw new CliError(`Workspace "${label}" has no build ${asked} before its latest (#${latest}).`);
  if (number === latest) return workspace.latest_build;
  try {
    return await client.workspaceBuildByNumber(workspace.owner_name, workspace.name, number);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404)
      throw new CliError(`Workspace "${label}" has no build #${number}.`, { hint: `Its latest build is #${latest}.` });
    throw error;
  }
}

/** The option that names a build, shared by the commands that read one. */
export const buildOption = {
  flags: '-b, --build <number>',
  description: 'A build number; negative counts back from the latest (-1 is the one before). Default: the latest',
} as const;
