// Lifecycle actions on many workspaces at once: one build per workspace through the same build
// endpoint a single action uses, a few at a time so a large selection does not flood the server.
import type { Workspace, WorkspaceBuild } from '../sdk/wire/index.js';
import { api, ApiError } from './api.js';
import { availableActions } from './workspace-actions.js';

/** The actions the list offers for a selection. */
export type BatchAction = 'start' | 'stop' | 'update' | 'delete';

/** Builds in flight at once. */
const PARALLEL = 4;
/** How often an update looks whether its stop has finished. */
const STOPPED_POLL_MS = 1000;
/** How long an update waits for its stop. */
const STOPPED_WAIT_MS = 5 * 60_000;

/** How a batch stands: how many are done, and which failed and why. */
export interface BatchProgress {
  readonly action: BatchAction;
  readonly total: number;
  readonly done: number;
  readonly failures: readonly { readonly name: string; readonly message: string }[];
  readonly finished: boolean;
}

/** The workspaces of `selected` the action fits in their current state. */
export function eligibleFor(action: BatchAction, selected: readonly Workspace[]): Workspace[] {
  return selected.filter((workspace) => availableActions(workspace).includes(action));
}

/** Runs `action` on each workspace, PARALLEL at a time, telling `onProgress` after each one. */
export async function runBatch(
  action: BatchAction,
  workspaces: readonly Workspace[],
  onProgress: (progress: BatchProgress) => void,
): Promise<BatchProgress> {
  let done = 0;
  const failures: { name: string; message: string }[] = [];
  const report = (finished: boolean): BatchProgress => {
    const progress = { action, total: workspaces.length, done, failures: [...failures], finished };
    onProgress(progress);
    return progress;
  };
  const queue = [...workspaces];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      try {
        await runOne(action, next);
      } catch (error) {
        failures.push({ name: next.name, message: error instanceof Error ? error.message : String(error) });
      }
      done += 1;
      report(false);
    }
  };
  report(false);
  await Promise.all(Array.from({ length: Math.min(PARALLEL, workspaces.length) }, worker));
  return report(true);
}

function build(workspace: Workspace, transition: 'start' | 'stop' | 'delete', templateVersionId?: string): Promise<WorkspaceBuild> {
  return api<WorkspaceBuild>('POST', `/workspaces/${workspace.id}/builds`, {
    body: { transition, ...(templateVersionId ? { template_version_id: templateVersionId } : {}) },
  });
}

async function runOne(action: BatchAction, workspace: Workspace): Promise<void> {
  if (action !== 'update') {
    await build(workspace, action);
    return;
  }
  // An update is a start on the active version; a running workspace stops first. Its stop is
  // awaited by asking the API, so the batch opens no stream besides the page's own.
  if (workspace.latest_build.status === 'running') {
    await build(workspace, 'stop');
    await untilStopped(workspace.id);
  }
  await build(workspace, 'start', workspace.template_active_version_id);
}

async function untilStopped(id: string): Promise<void> {
  const deadline = Date.now() + STOPPED_WAIT_MS;
  for (;;) {
    const current = await api<Workspace>('GET', `/workspaces/${id}`);
    const status = current.latest_build.status;
    if (status === 'stopped') return;
    if (status === 'failed' || status === 'canceled')
      throw new ApiError(0, { message: 'The stop before the update did not finish.', detail: current.latest_build.job.error ?? '' });
    if (Date.now() > deadline) throw new ApiError(0, { message: 'The stop before the update is taking too long.' });
    await new Promise((resolve) => setTimeout(resolve, STOPPED_POLL_MS));
  }
}
