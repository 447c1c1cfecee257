import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import { mapLimit } from './map-limit.js';
import type { OperationStats } from './operation-stats.js';
import { SIMULATED_TEMPLATE, findRunUsers, findRunWorkspaces } from './scaletest-run.js';

/** What a cleanup removed. */
export interface CleanupResult {
  workspacesDeleted: number;
  usersDeleted: number;
  templateDeleted: boolean;
}

/**
 * Deletes the workspaces of run `runId` (every run's when undefined), waiting for each delete build,
 * then their users; with no scale test workspace left anywhere, the simulated-agents template too.
 * Failures count as errors of their step and leave the rest going.
 */
export async function cleanupRun(
  client: CoveClient,
  runId: string | undefined,
  concurrency: number,
  stats: OperationStats,
): Promise<CleanupResult> {
  const result: CleanupResult = { workspacesDeleted: 0, usersDeleted: 0, templateDeleted: false };
  const workspaces = await findRunWorkspaces(client, runId);
  await mapLimit(workspaces, concurrency, async (workspace) => {
    try {
      await stats.time('delete workspace', async () => {
        const build = await client.createWorkspaceBuild(workspace.id, { transition: 'delete' });
        await client.followWorkspaceBuildLogs(build.id, () => undefined);
        const done = await client.workspaceBuild(build.id);
        if (done.job.status !== 'succeeded')
          throw new Error(
            `${workspace.owner_name}/${workspace.name}: the delete build ${done.job.status}${done.job.error ? `: ${done.job.error}` : ''}`,
          );
      });
      result.workspacesDeleted++;
    } catch {
      // Counted by stats.time.
    }
  });
  const users = await findRunUsers(client, runId);
  await mapLimit(users, concurrency, async (user) => {
    try {
      await stats.time('delete user', () => client.deleteUser(user.id));
      result.usersDeleted++;
    } catch {
      // Counted by stats.time; a user who still owns a workspace cannot be deleted.
    }
  });
  if ((await findRunWorkspaces(client, undefined)).length === 0) result.templateDeleted = await deleteSimulatedTemplate(client);
  return result;
}

async function deleteSimulatedTemplate(client: CoveClient): Promise<boolean> {
  const templates = await client.templates();
  const template = templates.find((t) => t.name === SIMULATED_TEMPLATE);
  if (!template) return false;
  try {
    await client.deleteTemplate(template.id);
    return true;
  } catch (error) {
    // Someone else's workspace still uses it: leave it.
    if (error instanceof ApiError) return false;
    throw error;
  }
}
