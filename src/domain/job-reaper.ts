import { insertJobLogs } from '../store/queries/provisioner-jobs.js';
import type { Store } from '../store/store.js';
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
 * Runs as the daemon itself, on a timer.
 */
export async function reapHungJobs(store: Store, now: Date): Promise<number> {
  const hungBefore = new Date(now.getTime() - HUNG_JOB_MS).toISOString();
  const staleBefore = new Date(now.getTime() - STALE_PENDING_JOB_MS).toISOString();
  const candidates = await store.db
    .selectFrom('provisioner_jobs')
    .select(['id', 'started_at', 'updated_at'])
    .where('completed_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb.and([eb('started_at', 'is not', null), eb('updated_at', '<', hungBefore)]),
        eb.and([eb('started_at', 'is', null), eb('updated_at', '<', staleBefore)]),
      ]),
    )
    .orderBy('updated_at')
    .limit(BATCH)
    .execute();
  let reaped = 0;
  for (const candidate of candidates) {
    const pending = candidate.started_at === null;
    const what = pending ? 'pending for 30 minutes' : 'hung for 5 minutes';
    const iso = now.toISOString();
    const done = await store.db.transaction().execute(async (trx) => {
      // Only if nothing happened since it was selected: a late update saves the job.
      const result = await trx
        .updateTable('provisioner_jobs')
        .set({
          completed_at: iso,
          updated_at: iso,
          started_at: candidate.started_at ?? iso,
          error: `Cove: Build has been detected as ${what} and has been terminated by the reaper.`,
        })
        .where('id', '=', candidate.id)
        .where('completed_at', 'is', null)
        .where('updated_at', '=', candidate.updated_at)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      const last = await trx
        .selectFrom('provisioner_job_logs')
        .select('stage')
        .where('job_id', '=', candidate.id)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      const stage = last?.stage ?? 'Unknown';
      const lines = [
        '',
        '====================',
        `Cove: Build has been detected as ${what} and will be terminated.`,
        '====================',
        '',
      ];
      await insertJobLogs(
        trx,
        candidate.id,
        lines.map((output) => ({ created_at: iso, source: 'provisioner_daemon', level: 'error', stage, output })),
      );
      return true;
    });
    if (!done) continue;
    reaped++;
    await store.pubsub.publish(jobEventsChannel(candidate.id), 'logs');
    await store.pubsub.publish(jobEventsChannel(candidate.id), 'done');
  }
  return reaped;
}
