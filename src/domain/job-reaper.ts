import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';
import type { ReapableJob, StalledJob } from '../store/rows.js';
import { DAEMON_GONE_MS, type ConnectedDaemons } from './connected-daemons.js';
import { jobEventsChannel } from './provisioner-events.js';
import { workspaceEventsChannel } from './workspace-events.js';

/** A running job whose daemon is alive but has not reported on it for this long is hung. */
export const HUNG_JOB_MS = 5 * 60 * 1000;
/**
 * A running job not updated for this long whose daemon is gone (see {@link DAEMON_GONE_MS}) is
 * orphaned: nothing will ever report on it. A running job is updated every 5 s.
 */
export const ORPHANED_JOB_MS = DAEMON_GONE_MS;
/** A job nobody has taken for this long will not be taken: no daemon matches it. */
export const STALE_PENDING_JOB_MS = 30 * 60 * 1000;
/** Jobs reaped per run, so one run stays short even after a long outage. */
const BATCH = 10;

/** Where the reaper reads and writes: the store as a system subject, the pubsub followers listen on. */
export interface JobTerminator {
  readonly store: AuthorizedStore;
  readonly pubsub: PubSub;
  /** Told, without waiting, of each job failed here (its notifications go out from there). */
  readonly jobFinished?: (jobId: string) => void;
}

/**
 * Fails jobs that stopped making progress: running ones whose daemon is gone or went silent, and
 * pending ones that no daemon took. Each gets log lines saying why, so a user following the logs
 * sees it. Runs on a timer in the daemon; `store` is the job reaper's system subject, and
 * `connected` the daemons connected to this process.
 */
export async function reapHungJobs(reaper: JobTerminator & { readonly connected: ConnectedDaemons }, now: Date): Promise<number> {
  const before = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const candidates = await reaper.store.provisionerJobs.listStalled(
    { hungBefore: before(HUNG_JOB_MS), orphanedBefore: before(ORPHANED_JOB_MS), staleBefore: before(STALE_PENDING_JOB_MS) },
    reaper.connected.liveness(now),
    BATCH,
  );
  let reaped = 0;
  for (const candidate of candidates) {
    if (await terminateJob(reaper, candidate, verdict(candidate))) reaped++;
  }
  return reaped;
}

/** Why a stalled job is failed: the banner line of its logs and its error. */
export interface Verdict {
  readonly banner: string;
  readonly error: string;
}

function verdict(job: ReapableJob): Verdict {
  if (job.started_at === null) {
    return {
      banner: 'Cove: Build has been detected as pending for 30 minutes and will be terminated.',
      error: 'Cove: Build has been detected as pending for 30 minutes and has been terminated by the reaper.',
    };
  }
  if (job.worker_alive === 0) {
    const daemon = job.worker_name ? `provisioner daemon "${job.worker_name}"` : 'provisioner daemon';
    return {
      banner: `Cove: The ${daemon} that ran this job stopped: not heard from for ${ORPHANED_JOB_MS / 1000} seconds. The job will be terminated.`,
      error: `Cove: The ${daemon} that ran this job stopped (not heard from for ${ORPHANED_JOB_MS / 1000} seconds); the job has been terminated.`,
    };
  }
  return {
    banner: 'Cove: Build has been detected as hung for 5 minutes and will be terminated.',
    error: 'Cove: Build has been detected as hung for 5 minutes and has been terminated by the reaper.',
  };
}

/**
 * Fails one stalled job with log lines around `verdict.banner`, unless something happened to it
 * since it was selected, and tells its followers and its workspace's watchers. Returns whether
 * it was failed here.
 */
export async function terminateJob(terminator: JobTerminator, job: StalledJob, verdict: Verdict): Promise<boolean> {
  const lines = ['', '====================', verdict.banner, '====================', ''];
  if (!(await terminator.store.provisionerJobs.reap(job, verdict.error, lines))) return false;
  terminator.jobFinished?.(job.id);
  await terminator.pubsub.publish(jobEventsChannel(job.id), 'logs');
  await terminator.pubsub.publish(jobEventsChannel(job.id), 'done');
  if (job.workspace_id) await terminator.pubsub.publish(workspaceEventsChannel(job.workspace_id), 'build');
  return true;
}
