import type { WorkspaceTransition } from '../../sdk/wire/index.js';
import { addMs } from '../../lib/duration.js';
import { nextAutostart } from './autostart.js';

/** The states of a provisioner job (the spec's job statuses). */
export type LifecycleJobStatus = 'pending' | 'running' | 'succeeded' | 'canceling' | 'canceled' | 'failed';

/** Everything the autobuild executor looks at for one workspace, as read from the database. */
export interface LifecycleInput {
  /** The executor's tick; it is truncated to the minute, as the reference does. */
  readonly now: Date;
  /** The workspace owner's status: only active owners autostart, suspended owners autostop. */
  readonly ownerStatus: 'active' | 'dormant' | 'suspended';
  readonly workspace: {
    /** `autostart_schedule`; null or empty when none. */
    readonly autostartSchedule: string | null;
    readonly lastUsedAt: Date;
    readonly dormantAt: Date | null;
    readonly deletingAt: Date | null;
  };
  readonly latestBuild: {
    readonly transition: WorkspaceTransition;
    /** Autostart counts scheduled times from here, so each one fires once. */
    readonly createdAt: Date;
    /** null = no autostop. */
    readonly deadline: Date | null;
    readonly maxDeadline: Date | null;
    readonly jobStatus: LifecycleJobStatus;
    readonly jobCompletedAt: Date | null;
  };
  readonly template: {
    readonly allowUserAutostart: boolean;
    /** `autostart_requirement.days_of_week` as a bitmap (Monday = bit 0 .. Sunday = bit 6). */
    readonly autostartDays: number;
    readonly failureTtlMs: number;
    readonly timeTilDormantMs: number;
    readonly timeTilDormantAutodeleteMs: number;
  };
}

/** Which executor rule fired; `failedstop` is a stop of a failed start after the failure TTL. */
export type LifecycleRule = 'autostop' | 'autostart' | 'failedstop' | 'dormancy' | 'autodelete';

/** The build reason the executor records (a failed-build stop is recorded as `autostop`). */
export type LifecycleBuildReason = 'autostart' | 'autostop' | 'dormancy' | 'autodelete';

/** What the executor does with one workspace at one tick. */
export interface LifecycleDecision {
  /** The build to queue, if any. */
  readonly transition: WorkspaceTransition | null;
  /** The queued build's reason, or `dormancy` when the workspace only becomes dormant. */
  readonly reason: LifecycleBuildReason | null;
  /** Which rule decided, for logs and audit. */
  readonly rule: LifecycleRule | null;
  /** Set `dormant_at` to now (and `deleting_at` with {@link deletingAtFor}). */
  readonly markDormant: boolean;
}

const NOTHING: LifecycleDecision = { transition: null, reason: null, rule: null, markDormant: false };
const ACTIVE_JOB: ReadonlySet<LifecycleJobStatus> = new Set(['pending', 'running', 'canceling']);
/** A failed autodelete is retried only after this long: a build every minute would hog compute. */
const DELETE_RETRY_MS = 24 * 60 * 60 * 1000;

/**
 * The autobuild executor's decision for one workspace (the reference's order, first match wins):
 * autostop at the deadline (or when the owner is suspended), autostart at the first allowed
 * scheduled time after the latest build, stop of a failed start after the failure TTL, dormancy
 * after `time_til_dormant` without use (stopping it if started), and deletion once dormant past
 * `deleting_at`. A workspace whose latest job is still active is left alone.
 */
export function decideTransition(input: LifecycleInput): LifecycleDecision {
  const tick = truncateToMinute(input.now);
  const { latestBuild: build } = input;
  if (ACTIVE_JOB.has(build.jobStatus)) return NOTHING;
  if (build.transition === 'delete' && build.jobStatus === 'succeeded') return NOTHING;
  if (isDueForAutostop(input, tick)) return decision('stop', 'autostop', 'autostop');
  if (isDueForAutostart(input, tick)) return decision('start', 'autostart', 'autostart');
  if (isDueForFailedStop(input, tick)) return decision('stop', 'autostop', 'failedstop');
  if (isDueForDormancy(input, tick)) {
    // Only a started workspace needs a stop; a stopped one just becomes dormant.
    const transition = build.transition === 'start' ? 'stop' : null;
    return { transition, reason: 'dormancy', rule: 'dormancy', markDormant: true };
  }
  if (isDueForDelete(input, tick)) return decision('delete', 'autodelete', 'autodelete');
  return NOTHING;
}

/** The `deleting_at` that goes with a new `dormant_at`: null when the template never auto-deletes. */
export function deletingAtFor(dormantAt: Date, timeTilDormantAutodeleteMs: number): Date | null {
  return timeTilDormantAutodeleteMs > 0 ? addMs(dormantAt, timeTilDormantAutodeleteMs) : null;
}

function decision(transition: WorkspaceTransition, reason: LifecycleBuildReason, rule: LifecycleRule): LifecycleDecision {
  return { transition, reason, rule, markDormant: false };
}

function isDueForAutostop({ ownerStatus, workspace, latestBuild: build }: LifecycleInput, tick: number): boolean {
  if (build.jobStatus === 'failed' || workspace.dormantAt || build.transition !== 'start') return false;
  if (ownerStatus === 'suspended') return true;
  return build.deadline !== null && tick >= build.deadline.getTime();
}

function isDueForAutostart({ ownerStatus, workspace, latestBuild: build, template }: LifecycleInput, tick: number): boolean {
  if (ownerStatus !== 'active' || build.jobStatus === 'failed' || workspace.dormantAt || build.transition !== 'stop') return false;
  // Counting from the latest build means a time fires once: its start build becomes the latest.
  // A tick missed (the daemon was down) still starts the workspace late.
  const due = nextAutostart({
    schedule: workspace.autostartSchedule,
    after: build.createdAt,
    templateAllowsAutostart: template.allowUserAutostart,
    autostartDays: template.autostartDays,
  });
  return due !== null && tick >= due.getTime();
}

function isDueForFailedStop({ latestBuild: build, template }: LifecycleInput, tick: number): boolean {
  return (
    template.failureTtlMs > 0 &&
    build.jobStatus === 'failed' &&
    build.transition === 'start' &&
    build.jobCompletedAt !== null &&
    tick - build.jobCompletedAt.getTime() > template.failureTtlMs
  );
}

function isDueForDormancy({ workspace, template }: LifecycleInput, tick: number): boolean {
  return !workspace.dormantAt && template.timeTilDormantMs > 0 && tick - workspace.lastUsedAt.getTime() > template.timeTilDormantMs;
}

function isDueForDelete({ workspace, latestBuild: build, template }: LifecycleInput, tick: number): boolean {
  const due =
    workspace.dormantAt !== null &&
    workspace.deletingAt !== null &&
    template.timeTilDormantAutodeleteMs > 0 &&
    tick > workspace.deletingAt.getTime();
  if (due && build.transition === 'delete' && build.jobStatus === 'failed') {
    return build.jobCompletedAt !== null && tick - build.jobCompletedAt.getTime() > DELETE_RETRY_MS;
  }
  return due;
}

function truncateToMinute(date: Date): number {
  return Math.floor(date.getTime() / 60_000) * 60_000;
}
