import type { ProvisionerJobRow } from '../store/rows.js';

/** The states of a provisioner job, as the spec lists them. */
export type JobStatus = 'pending' | 'running' | 'succeeded' | 'canceling' | 'canceled' | 'failed';

/** Every value the job-list filter accepts; `unknown` is accepted and matches nothing. */
export const JOB_STATUS_FILTERS = ['pending', 'running', 'succeeded', 'canceling', 'canceled', 'failed', 'unknown'] as const;

type Timestamps = Pick<ProvisionerJobRow, 'started_at' | 'completed_at' | 'canceled_at' | 'error'>;

/** A job's status, derived from its timestamps and error in the reference's order. */
export function jobStatus(job: Timestamps): JobStatus {
  if (job.completed_at) {
    if (job.error) return 'failed';
    return job.canceled_at ? 'canceled' : 'succeeded';
  }
  if (job.error) return 'failed';
  if (job.canceled_at) return 'canceling';
  return job.started_at ? 'running' : 'pending';
}

/** Whether a job has reached a final status. */
export function isJobDone(job: Timestamps): boolean {
  return job.completed_at !== null;
}
