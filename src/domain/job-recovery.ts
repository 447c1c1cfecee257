import { terminateJob, type JobTerminator } from './job-reaper.js';

/** Jobs read per query while recovering; all of them are failed, batch after batch. */
const BATCH = 100;

/**
 * Fails the jobs a replica's built-in provisioner daemons held when the replica stopped without
 * finishing them (killed, crashed, or the machine went down). Runs once at start, before this
 * replica's built-in daemons connect: whatever they held then belonged to the previous run of this
 * process, which is gone, so nothing would ever report on those jobs. The daemons are the ones whose
 * ids begin with `builtinDaemonIdPrefix` (each replica's are its own). `store` is the job
 * recovery's system subject. Returns how many jobs were failed.
 */
export async function failJobsOfPreviousRun(recovery: JobTerminator, builtinDaemonIdPrefix: string): Promise<number> {
  let failed = 0;
  for (;;) {
    const jobs = await recovery.store.provisionerJobs.listOpenOfWorkers(builtinDaemonIdPrefix, BATCH);
    let progressed = false;
    for (const job of jobs) {
      const daemon = job.worker_name ? `provisioner daemon "${job.worker_name}"` : 'provisioner daemon';
      const ended = await terminateJob(recovery, job, {
        banner: `Cove: The ${daemon} that ran this job stopped (its server restarted). The job will be terminated.`,
        error: `Cove: The ${daemon} that ran this job stopped (its server restarted); the job has been terminated.`,
      });
      if (ended) failed++;
      progressed ||= ended;
    }
    // A job that changed meanwhile is left to the reaper rather than looping on it.
    if (jobs.length < BATCH || !progressed) return failed;
  }
}
