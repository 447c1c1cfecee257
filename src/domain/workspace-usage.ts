import { activityBump, nextAutostart } from './schedule/index.js';
import { workspaceEventsChannel } from './workspace-events.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';
import type { WorkspaceRow } from '../store/rows.js';

/**
 * Records that someone used a workspace (an app, a terminal, SSH, a port forward): its
 * `last_used_at` moves to now and a running build's deadline moves out by the template's activity
 * bump. The store's subject must be able to update the workspace.
 */
export async function recordWorkspaceUsage(store: AuthorizedStore, events: PubSub, workspace: WorkspaceRow, now: Date): Promise<void> {
  await store.touchWorkspace(workspace);
  await bumpDeadline(store, workspace, now);
  await events.publish(workspaceEventsChannel(workspace.id), 'usage');
}

/** Moves a running workspace's deadline out by the template's activity bump, as use does. */
async function bumpDeadline(store: AuthorizedStore, workspace: WorkspaceRow, now: Date): Promise<void> {
  const latest = await store.getLatestBuild(workspace);
  if (!latest) return;
  const { build, job } = latest;
  if (!build.deadline || build.transition !== 'start') return;
  if (!job.completed_at || job.error || job.canceled_at) return;
  const template = await store.getWorkspaceTemplate(workspace).catch(() => undefined);
  if (!template) return;
  let bumped: Date | null = null;
  try {
    const nextStart = nextAutostart({
      schedule: workspace.autostart_schedule,
      after: now,
      templateAllowsAutostart: template.allow_user_autostart === 1,
      autostartDays: template.autostart_requirement_days,
    });
    bumped = activityBump({
      deadline: new Date(build.deadline),
      maxDeadline: build.max_deadline ? new Date(build.max_deadline) : null,
      now,
      bumpMs: template.activity_bump_ms,
      nextAutostart: nextStart,
      ttlMs: workspace.ttl_ms ?? 0,
    });
  } catch {
    return;
  }
  if (bumped) await store.setBuildDeadline(workspace, build, bumped.toISOString());
}
