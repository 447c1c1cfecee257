import type { WorkspaceTransition } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { EnabledFeatures } from '../lib/enabled-features.js';
import type { PubSub } from '../store/pubsub.js';
import { scheduleInEffect } from './advanced-scheduling.js';
import { jobStatus } from './provisioner-job-status.js';
import { decideTransition, deletingAtFor, type LifecycleJobStatus } from './schedule/index.js';
import { createBuild } from './workspace-builds.js';
import { workspaceEventsChannel } from './workspace-events.js';
import type { EventNotifier } from './notifications/events/event-notifier.js';
import { notifyWorkspaceDormant } from './notifications/events/workspace-dormancy.js';

/** What one executor run did, for logs and tests. */
export interface AutobuildResult {
  readonly builds: readonly { readonly workspaceId: string; readonly transition: string; readonly reason: string }[];
  readonly dormant: readonly string[];
  readonly errors: readonly { readonly workspaceId: string; readonly message: string }[];
}

/**
 * One tick of the lifecycle executor: for every live workspace that may be due (selected in SQL),
 * decides from its schedule, its latest build and its template whether to start, stop, mark
 * dormant or delete it, and does so. Builds are recorded as the owner's, with the reason saying
 * why. `authorized` is the store as the executor's system subject (`SYSTEM_SUBJECTS.autobuild`);
 * templates' advanced schedule settings act only with the licensed feature in `features`.
 * Owners of workspaces made dormant are told through `notifier`; the builds' own outcomes are
 * told when their jobs finish.
 */
export async function runAutobuild(
  authorized: AuthorizedStore,
  events: PubSub,
  now: Date,
  features: EnabledFeatures,
  notifier?: EventNotifier,
): Promise<AutobuildResult> {
  // Ticks are whole minutes, as in the reference, so schedules fire on the minute they name.
  const tick = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const workspaces = await authorized.workspaces.listDueForLifecycle(tick);
  const facts = await authorized.workspaces.lifecycleFacts(workspaces);
  const builds: AutobuildResult['builds'][number][] = [];
  const dormant: string[] = [];
  const errors: AutobuildResult['errors'][number][] = [];

  for (const workspace of workspaces) {
    const build = facts.builds.get(workspace.id);
    const job = build ? facts.jobs.get(build.job_id) : undefined;
    const stored = facts.templates.get(workspace.template_id);
    if (!build || !job || !stored) continue;
    const template = scheduleInEffect(stored, features);
    const decision = decideTransition({
      now: tick,
      ownerStatus: (facts.ownerStatuses.get(workspace.owner_id) ?? 'active') as 'active' | 'dormant' | 'suspended',
      workspace: {
        autostartSchedule: workspace.autostart_schedule,
        lastUsedAt: new Date(workspace.last_used_at),
        dormantAt: workspace.dormant_at ? new Date(workspace.dormant_at) : null,
        deletingAt: workspace.deleting_at ? new Date(workspace.deleting_at) : null,
      },
      latestBuild: {
        transition: build.transition as WorkspaceTransition,
        createdAt: new Date(build.created_at),
        deadline: build.deadline ? new Date(build.deadline) : null,
        maxDeadline: build.max_deadline ? new Date(build.max_deadline) : null,
        jobStatus: jobStatus(job) as LifecycleJobStatus,
        jobCompletedAt: job.completed_at ? new Date(job.completed_at) : null,
      },
      template: {
        allowUserAutostart: template.allow_user_autostart === 1,
        autostartDays: template.autostart_requirement_days,
        failureTtlMs: template.failure_ttl_ms,
        timeTilDormantMs: template.time_til_dormant_ms,
        timeTilDormantAutodeleteMs: template.time_til_dormant_autodelete_ms,
      },
    });
    try {
      let current = workspace;
      if (decision.markDormant) {
        current = await authorized.workspaces.update(workspace, {
          dormant_at: tick.toISOString(),
          deleting_at: deletingAtFor(tick, template.time_til_dormant_autodelete_ms)?.toISOString() ?? null,
        });
        dormant.push(workspace.id);
        await events.publish(workspaceEventsChannel(workspace.id), 'dormant');
        if (notifier) await notifyWorkspaceDormant(notifier, current, { idleMs: template.time_til_dormant_ms });
      }
      if (decision.transition && decision.reason) {
        const useActive =
          decision.transition === 'start' && (template.require_active_version === 1 || workspace.automatic_updates === 'always');
        await createBuild(
          authorized,
          events,
          current,
          {
            transition: decision.transition,
            reason: decision.reason,
            initiatorId: workspace.owner_id,
            ...(useActive ? { template_version_id: template.active_version_id } : {}),
          },
          tick,
        );
        builds.push({ workspaceId: workspace.id, transition: decision.transition, reason: decision.reason });
      }
    } catch (error) {
      errors.push({ workspaceId: workspace.id, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return { builds, dormant, errors };
}
