import type { Kysely } from 'kysely';
import * as jobs from '../queries/provisioner-jobs.js';
import type { Database } from '../schema.js';
import type { StoreServices } from '../store-services.js';

/**
 * Cancels a job whose cancel was authorized. A started job whose daemon is no longer alive ends
 * at once (nobody would ever report it), with log lines saying why in its last stage.
 */
export async function cancelAuthorizedJob(
  store: StoreServices,
  db: Kysely<Database>,
  job: jobs.ProvisionerJobRow,
  cancellation: jobs.JobCancellation,
): Promise<jobs.ProvisionerJobRow> {
  const now = store.nowIso();
  // A cancel may end the job at once: as for provisionerJobs.finish.
  await store.changingAgentAuths('*', () =>
    db.transaction().execute(async (trx) => {
      if (!(await jobs.cancelJob(trx, job.id, now, cancellation.live))) return;
      const stage = (await jobs.lastLogStage(trx, job.id)) ?? 'Unknown';
      await jobs.insertJobLogs(
        trx,
        job.id,
        cancellation.orphanLines.map((output) => ({ created_at: now, source: 'provisioner_daemon', level: 'warn', stage, output })),
      );
    }),
  );
  return (await jobs.getJobById(db, job.id)) ?? job;
}
