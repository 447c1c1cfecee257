import type { CoveClient } from '../sdk/client.js';
import type { Workspace } from '../sdk/wire/index.js';
import { requireSucceeded, runBuild, stateLine } from './build-progress.js';
import { CommandContext } from './command.js';

/**
 * Starts a stopped workspace before connecting to it, as the reference's `ssh` and `port-forward`
 * do, with the build's progress on stderr: stdout belongs to the session (under `ssh --stdio`, to
 * OpenSSH) or to the JSON a script reads. A template that requires its active version gets it.
 */
export async function startStoppedWorkspace(
  context: CommandContext,
  client: CoveClient,
  workspace: Workspace,
  label: string,
): Promise<void> {
  const progress = new CommandContext({ ...context.io, stdout: context.io.stderr }, { ...context.global, output: 'table' });
  progress.say(`Workspace "${label}" is stopped; starting it...`);
  const explicit = workspace.template_require_active_version && workspace.outdated;
  const build = await runBuild(progress, client, workspace, label, {
    transition: 'start',
    ...(explicit ? { template_version_id: workspace.template_active_version_id } : {}),
  });
  requireSucceeded(build, label);
  progress.say(stateLine(label, build));
}
