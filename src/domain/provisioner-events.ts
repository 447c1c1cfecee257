/**
 * Pubsub channels of provisioner jobs. Payloads are tiny: listeners re-read the database, which
 * keeps replicas on PostgreSQL consistent with each other.
 */

/** A job was queued in an organization; payload: the organization id. Wakes waiting daemons. */
export const JOB_POSTED_CHANNEL = 'provisioner_job_posted';

/** Events of one job. */
export function jobEventsChannel(jobId: string): string {
  return `provisioner_job:${jobId}`;
}

/** What happened to a job: new log lines, a cancel request, or the end (completed or failed). */
export type JobEvent = 'logs' | 'canceled' | 'done';
