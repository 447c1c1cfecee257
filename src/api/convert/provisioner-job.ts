import type { JobView } from '../../domain/provisioner-job-views.js';
import type { ProvisionerJob, ProvisionerJobLog } from '../../sdk/wire/index.js';
import type { ProvisionerJobLogRow } from '../../store/rows.js';

/** A job as the API shows it; absent timestamps are left out rather than null. */
export function toWireJob(view: JobView): ProvisionerJob {
  const { row } = view;
  const input: ProvisionerJob['input'] = {};
  if (view.input.template_version_id) input.template_version_id = view.input.template_version_id;
  if (view.input.workspace_build_id) input.workspace_build_id = view.input.workspace_build_id;
  return {
    id: row.id,
    created_at: row.created_at,
    ...(row.started_at ? { started_at: row.started_at } : {}),
    ...(row.completed_at ? { completed_at: row.completed_at } : {}),
    ...(row.canceled_at ? { canceled_at: row.canceled_at } : {}),
    ...(row.error ? { error: row.error } : {}),
    ...(row.error_code === 'REQUIRED_TEMPLATE_VARIABLES' ? { error_code: row.error_code } : {}),
    file_id: row.file_id,
    organization_id: row.organization_id,
    ...(row.worker_id ? { worker_id: row.worker_id } : {}),
    ...(view.workerName ? { worker_name: view.workerName } : {}),
    available_workers: [...view.availableWorkers],
    status: view.status,
    tags: view.tags,
    type: row.type as ProvisionerJob['type'],
    queue_position: view.queuePosition,
    queue_size: view.queueSize,
    input,
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
