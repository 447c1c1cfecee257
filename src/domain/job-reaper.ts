import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';
import { jobEventsChannel } from './provisioner-events.js';

/** A running job whose daemon has not reported for this long is hung. */
export const HUNG_JOB_MS = 5 * 60 * 1000;
/** A job nobody has taken for this long will not be taken: no daemon matches it. */
export const STALE_PENDING_JOB_MS = 30 * 60 * 1000;
/** Jobs reaped per run, so one run stays short even after a long outage. */
const BATCH = 10;

/**
 * Fails jobs that stopped making progress: running ones whose daemon went silent, and pending
 * ones that no daemon took. Each gets log lines saying why, so a user following the logs sees it.
 * Runs on a timer in the daemon; `store` is the job reaper's system subject.
 */
export async function reapHungJobs(reaper: { readonly store: AuthorizedStore; readonly pubsub: PubSub }, now: Date): Promise<number> {
  const hungBefore = new Date(now.getTime() - HUNG_JOB_MS).toISOString();
  const staleBefore = new Date(now.getTime() - STALE_PENDING_JOB_MS).toISOString();
  const candidates = await reaper.store.listHungProvisionerJobs(hungBefore, staleBefore, BATCH);
  let reaped = 0;
  for (const candidate of candidates) {
    const what = candidate.started_at === null ? 'pending for 30 minutes' : 'hung for 5 minutes';
    const lines = [
      '',
      '====================',
      `Cove: Build has been detected as ${what} and will be terminated.`,
      '====================',
      '',
    ];
    const error = `Cove: Build has been detected as ${what} and has been terminated by the reaper.`;
    if (!(await reaper.store.reapProvisionerJob(candidate, error, lines))) continue;
    reaped++;
    await reaper.pubsub.publish(jobEventsChannel(candidate.id), 'logs');
    await reaper.pubsub.publish(jobEventsChannel(candidate.id), 'done');
  }
  return reaped;
}
