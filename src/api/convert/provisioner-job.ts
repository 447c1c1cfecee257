import type { JobView } from '../../domain/provisioner-job-views.js';
import type { ProvisionerJob, ProvisionerJobLog } from '../../sdk/wire/index.js';
import type { ProvisionerJobLogRow } from '../../store/rows.js';

/** A job as the API shows it: every field the spec lists, null where there is no value. */
export function toWireJob(view: JobView): ProvisionerJob {
  const { row } = view;
  return {
    id: row.id,
    created_at: row.created_at,
    started_at: row.started_at || null,
    completed_at: row.completed_at || null,
    canceled_at: row.canceled_at || null,
    error: row.error || null,
    error_code: row.error_code === 'REQUIRED_TEMPLATE_VARIABLES' ? row.error_code : null,
    file_id: row.file_id,
    organization_id: row.organization_id,
    worker_id: row.worker_id || null,
    worker_name: view.workerName || null,
    available_workers: [...view.availableWorkers],
    status: view.status,
    tags: view.tags,
    type: row.type as ProvisionerJob['type'],
    queue_position: view.queuePosition,
    queue_size: view.queueSize,
    input: {
      template_version_id: view.input.template_version_id || null,
      workspace_build_id: view.input.workspace_build_id || null,
      // Input errors are refused when the job is made, so a stored job's input has none.
      error: null,
    },
    metadata: { ...view.metadata },
  };
}

/** A job log line as the API shows it. */
export function toWireJobLog(row: ProvisionerJobLogRow): ProvisionerJobLog {
  return {
    id: Number(row.id),
    created_at: row.created_at,
    log_source: row.source as ProvisionerJobLog['log_source'],
    log_level: row.level as ProvisionerJobLog['log_level'],
    stage: row.stage,
    output: row.output,
  };
}
