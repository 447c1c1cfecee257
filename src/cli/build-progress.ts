import { ApiError } from '../sdk/api-error.js';
import type { CoveClient } from '../sdk/client.js';
import type { CreateWorkspaceBuildRequest, Workspace, WorkspaceBuild } from '../sdk/wire/index.js';
import { CliError } from './cli-error.js';
import { followJob } from './follow-job.js';
import type { CommandContext } from './command.js';
import { printJson } from './output.js';

/** Follows a workspace build to its end, printing its log by stage (see followJob). */
export async function followBuild(context: CommandContext, client: CoveClient, build: WorkspaceBuild): Promise<WorkspaceBuild> {
  return followJob(context, build, {
    noun: 'build',
    read: () => client.workspaceBuild(build.id),
    follow: (onLog) => client.followWorkspaceBuildLogs(build.id, onLog),
    logsAfter: async (after) => (await client.workspaceBuildLogs(build.id)).filter((log) => after === undefined || log.id > after),
  });
}

/**
 * Queues a build of the workspace and follows it to its end. A build while another is active
 * gets the API's message and a way out.
 */
export async function runBuild(
  context: CommandContext,
  client: CoveClient,
  workspace: Workspace,
  label: string,
  request: CreateWorkspaceBuildRequest,
): Promise<WorkspaceBuild> {
  let build: WorkspaceBuild;
  try {
    build = await client.createWorkspaceBuild(workspace.id, request);
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      throw new CliError(`${error.message} (workspace "${label}" is ${workspace.latest_build.status})`, {
        hint: `Wait for it to finish (see "cove show ${label}"), or cancel it with "cove workspaces cancel ${label}".`,
      });
    }
    throw error;
  }
  return followBuild(context, client, build);
}

/**
 * Says how a build ended: the workspace as JSON under `-o json` (even when the build failed, so
 * scripts see its state), then the job's error as a CliError, or else where the workspace is now.
 */
export async function reportBuild(context: CommandContext, client: CoveClient, label: string, build: WorkspaceBuild): Promise<number> {
  if (context.json) printJson(context.io, await client.workspace(build.workspace_id, build.transition === 'delete'));
  requireSucceeded(build, label);
  context.say(stateLine(label, build));
  return 0;
}

/** The build, when its job succeeded; else the job's error as a CliError. */
export function requireSucceeded(build: WorkspaceBuild, label: string): WorkspaceBuild {
  const { job } = build;
  if (job.status === 'succeeded') return build;
  const what = `The ${build.transition} build of workspace "${label}"`;
  if (job.status === 'canceled') throw new CliError(`${what} was canceled.`);
  throw new CliError(`${what} failed: ${job.error || 'no reason was given'}`, { hint: 'The build log above shows where it went wrong.' });
}

/** The line that says where a workspace ended up, e.g. `Workspace "dev" is running.` */
export function stateLine(label: string, build: Pick<WorkspaceBuild, 'status'>): string {
  switch (build.status) {
    case 'deleted':
      return `Workspace "${label}" has been deleted.`;
    case 'failed':
      return `The last build of workspace "${label}" failed.`;
    case 'canceled':
      return `The last build of workspace "${label}" was canceled.`;
    default:
      return `Workspace "${label}" is ${build.status}.`;
  }
}
