import { activityBump, nextAutostart } from './schedule/index.js';
import { workspaceEventsChannel } from './workspace-events.js';
import { latestBuilds, type WorkspaceRow } from '../store/queries/workspaces.js';
import type { Store } from '../store/store.js';

/**
 * Records that someone used a workspace (an app, a terminal, SSH, a port forward): its
 * `last_used_at` moves to now and a running build's deadline moves out by the template's activity
 * bump. The caller has already decided the user may use the workspace.
 */
export async function recordWorkspaceUsage(store: Store, workspace: WorkspaceRow): Promise<void> {
  await store.db.updateTable('workspaces').set({ last_used_at: store.nowIso() }).where('id', '=', workspace.id).execute();
  await bumpDeadline(store, workspace);
  await store.pubsub.publish(workspaceEventsChannel(workspace.id), 'usage');
}

/** Moves a running workspace's deadline out by the template's activity bump, as use does. */
async function bumpDeadline(store: Store, workspace: WorkspaceRow): Promise<void> {
  const db = store.db;
  const build = (await latestBuilds(db, [workspace.id])).get(workspace.id);
  if (!build?.deadline || build.transition !== 'start') return;
  const job = await db
    .selectFrom('provisioner_jobs')
    .select(['completed_at', 'error', 'canceled_at'])
    .where('id', '=', build.job_id)
    .executeTakeFirst();
  if (!job?.completed_at || job.error || job.canceled_at) return;
  const template = await db
    .selectFrom('templates')
    .select(['activity_bump_ms', 'allow_user_autostart', 'autostart_requirement_days'])
    .where('id', '=', workspace.template_id)
    .executeTakeFirst();
  if (!template) return;
  const now = store.clock.now();
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
  if (bumped) await db.updateTable('workspace_builds').set({ deadline: bumped.toISOString() }).where('id', '=', build.id).execute();
}
