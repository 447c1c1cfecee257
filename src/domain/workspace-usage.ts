import { activityBump, nextAutostart } from './schedule/index.js';
import { workspaceEventsChannel } from './workspace-events.js';
import type { EnabledFeatures } from '../lib/enabled-features.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import { scheduleInEffect } from './advanced-scheduling.js';
import type { PubSub } from '../store/pubsub.js';
import type { WorkspaceRow } from '../store/rows.js';

/**
 * Records that someone used a workspace (an app, a terminal, SSH, a port forward): its
 * `last_used_at` moves to now and a running build's deadline moves out by the template's activity
 * bump. The store's subject must be able to update the workspace; `features` says whether the
 * template's advanced schedule settings act.
 */
export async function recordWorkspaceUsage(
  store: AuthorizedStore,
  events: PubSub,
  workspace: WorkspaceRow,
  now: Date,
  features: EnabledFeatures,
): Promise<void> {
  await store.workspaces.touch(workspace);
  await bumpDeadline(store, workspace, now, features);
  await events.publish(workspaceEventsChannel(workspace.id), 'usage');
}

/** Moves a running workspace's deadline out by the template's activity bump, as use does. */
async function bumpDeadline(store: AuthorizedStore, workspace: WorkspaceRow, now: Date, features: EnabledFeatures): Promise<void> {
  const latest = await store.workspaceBuilds.getLatest(workspace);
  if (!latest) return;
  const { build, job } = latest;
  if (!build.deadline || build.transition !== 'start') return;
  if (!job.completed_at || job.error || job.canceled_at) return;
  const stored = await store.workspaces.template(workspace).catch(() => undefined);
  if (!stored) return;
  const template = scheduleInEffect(stored, features);
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
  if (bumped) await store.workspaceBuilds.setDeadline(workspace, build, bumped.toISOString());
}
