// The lifecycle actions on a workspace, as new builds: start, stop, restart, update and delete.
import type { Workspace, WorkspaceBuild } from '../sdk/wire/index.js';
import { api, untilStatus } from './api.js';

/** What a user can do to a workspace. */
export type WorkspaceAction = 'start' | 'stop' | 'restart' | 'update' | 'delete';

function build(workspace: Workspace, transition: 'start' | 'stop' | 'delete', templateVersionId?: string): Promise<WorkspaceBuild> {
  return api<WorkspaceBuild>('POST', `/workspaces/${workspace.id}/builds`, {
    body: { transition, ...(templateVersionId ? { template_version_id: templateVersionId } : {}) },
  });
}

/** Starts the action's build(s); restart and update stop first and start once stopped. Returns what was done. */
export async function runWorkspaceAction(workspace: Workspace, action: WorkspaceAction): Promise<string> {
  switch (action) {
    case 'start':
      await build(workspace, 'start');
      return 'Starting.';
    case 'stop':
      await build(workspace, 'stop');
      return 'Stopping.';
    case 'delete':
      await build(workspace, 'delete');
      return 'Deleting.';
    case 'restart':
    case 'update': {
      const version = action === 'update' ? workspace.template_active_version_id : undefined;
      if (workspace.latest_build.status === 'running') {
        await build(workspace, 'stop');
        await untilStatus(workspace.id, ['stopped']);
      }
      await build(workspace, 'start', version);
      return action === 'update' ? 'Updating to the active version.' : 'Restarting.';
    }
  }
}

/** Which actions fit a workspace in its current state. */
export function availableActions(workspace: Workspace): WorkspaceAction[] {
  const status = workspace.latest_build.status;
  const actions: WorkspaceAction[] = [];
  if (status === 'stopped' || status === 'failed' || status === 'canceled') actions.push('start');
  if (status === 'running') actions.push('stop', 'restart');
  if (workspace.outdated && ['running', 'stopped', 'failed', 'canceled'].includes(status)) actions.push('update');
  if (['running', 'stopped', 'failed', 'canceled'].includes(status)) actions.push('delete');
  return actions;
}

/** Whether the workspace is between states (a build runs). */
export function isTransitioning(workspace: Workspace): boolean {
  return ['pending', 'starting', 'stopping', 'deleting', 'canceling'].includes(workspace.latest_build.status);
}
