import type { JobView } from '../../domain/provisioner-job-views.js';
import type { ProvisionerJob, ProvisionerJobLog } from '../../sdk/wire/index.js';
import type { ProvisionerJobLogRow } from '../../store/rows.js';

import { nonEmpty } from './non-empty.js';

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * A job as the API shows it: every field the spec lists; those without a value left out, as the
 * reference's server leaves them out.
 */
export function toWireJob(view: JobView): ProvisionerJob {
  const { row } = view;
  return {
    id: row.id,
    created_at: row.created_at,
    started_at: row.started_at || undefined,
    completed_at: row.completed_at || undefined,
    canceled_at: row.canceled_at || undefined,
    error: row.error || undefined,
    error_code: row.error_code === 'REQUIRED_TEMPLATE_VARIABLES' ? row.error_code : undefined,
    file_id: row.file_id,
    organization_id: row.organization_id,
    worker_id: row.worker_id || undefined,
    worker_name: view.workerName || undefined,
    available_workers: nonEmpty([...view.availableWorkers]),
    status: view.status,
    tags: view.tags,
    type: row.type as ProvisionerJob['type'],
    queue_position: view.queuePosition,
    queue_size: view.queueSize,
    input: {
      template_version_id: view.input.template_version_id || undefined,
      workspace_build_id: view.input.workspace_build_id || undefined,
      // Input errors are refused when the job is made, so a stored job's input has none.
    },
    metadata: {
      ...view.metadata,
      // The reference's server sends the zero UUID for a version that is in no template yet.
      template_id: view.metadata.template_id ?? ZERO_UUID,
      workspace_id: view.metadata.workspace_id ?? undefined,
      workspace_name: view.metadata.workspace_name ?? undefined,
    },
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
