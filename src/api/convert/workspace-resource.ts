import type { ResourceMetadata, WorkspaceAgent, WorkspaceResource } from '../../sdk/wire/index.js';
import { nonEmpty } from './non-empty.js';
import { parseJson } from '../../store/json-column.js';
import type { WorkspaceResourceRow } from '../../store/rows.js';

/**
 * A resource row as the API shows it, with the agents given (running ones for builds, plans for
 * imports); no metadata is left out rather than an empty list, as the reference sends it.
 */
export function toWireResource(row: WorkspaceResourceRow, agents: WorkspaceAgent[]): WorkspaceResource {
  return {
    id: row.id,
    job_id: row.job_id,
    created_at: row.created_at,
    workspace_transition: row.transition as WorkspaceResource['workspace_transition'],
    name: row.name,
    type: row.type,
    icon: row.icon,
    hide: row.hide === 1,
    daily_cost: row.daily_cost,
    metadata: nonEmpty(parseJson<ResourceMetadata[]>(row.metadata, [])),
    agents,
  };
}
