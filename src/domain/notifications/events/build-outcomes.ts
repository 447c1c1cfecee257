import type { FinishedBuildFacts } from '../../../store/authorized-store.js';
import type { NotificationRequest } from '../notification-request.js';
import { tell, workspaceTargets, type EventNotifier } from './event-notifier.js';

/** The build reasons of builds nobody asked for: the lifecycle executor's. */
const AUTOMATIC_REASONS: ReadonlySet<string> = new Set(['autostart', 'autostop', 'dormancy', 'autodelete']);

/** Why an automatic stop or deletion happened, as the owner reads it. */
const AUTOMATIC_WHY: Readonly<Record<string, string>> = {
  autostop: 'it reached its scheduled stop time',
  dormancy: 'it was not used for a while and is now dormant',
  autodelete: 'it stayed dormant past its deletion date',
};

/**
 * Tells the owner how a workspace build ended, when that is news: a failed build (automatic or
 * started by someone), a workspace stopped automatically, and a workspace deleted automatically or
 * by someone else. Called once a build's job has finished (whoever finished it: its provisioner
 * daemon, the reaper, the recovery at start); each is queued once per build, however often this
 * runs for it. Never throws.
 */
export async function notifyBuildFinished(notifier: EventNotifier, jobId: string): Promise<number> {
  return tell(notifier, 'workspace build finished', async () => {
    const facts = await notifier.store.notificationEvents.finishedBuild(jobId);
    const request = facts ? buildOutcomeRequest(facts) : undefined;
    return request ? [request] : [];
  });
}

function buildOutcomeRequest(facts: FinishedBuildFacts): NotificationRequest | undefined {
  const { workspace, build, job, owner, initiator } = facts;
  // Only a finished job is news; a canceled one is what someone asked for.
  if (!job.completed_at || job.canceled_at) return undefined;
  const automatic = AUTOMATIC_REASONS.has(build.reason);
  const common = {
    userId: owner.id,
    targets: workspaceTargets(workspace),
    createdBy: 'provisioner-job',
  };
  const labels = {
    workspace: workspace.name,
    owner: owner.username,
    transition: build.transition,
    buildNumber: String(build.build_number),
  };
  if (job.error !== '') {
    return {
      ...common,
      kind: automatic ? 'workspaceAutobuildFailed' : 'workspaceManualBuildFailed',
      labels: {
        ...labels,
        reason: job.error,
        buildReason: build.reason,
        initiator: automatic ? 'autobuild' : (initiator?.username ?? 'unknown'),
      },
      dedupeKey: `workspace-build-failed:${build.id}`,
    };
  }
  if (build.transition === 'stop' && automatic) {
    return {
      ...common,
      kind: 'workspaceAutoStopped',
      labels: { ...labels, reason: AUTOMATIC_WHY[build.reason] ?? build.reason },
      dedupeKey: `workspace-auto-stopped:${build.id}`,
    };
  }
  if (build.transition === 'delete') {
    // A deletion the owner asked for themselves is no news to them.
    if (!automatic && build.initiator_id === owner.id) return undefined;
    const by = initiator?.username ?? 'someone';
    return {
      ...common,
      kind: 'workspaceDeleted',
      labels: {
        ...labels,
        reason: automatic ? (AUTOMATIC_WHY[build.reason] ?? build.reason) : `${by} deleted it`,
        initiator: automatic ? 'autobuild' : by,
      },
      dedupeKey: `workspace-deleted:${build.id}`,
    };
  }
  return undefined;
}
