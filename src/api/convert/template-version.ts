import { stableId, wireApps, wireScripts } from '../../domain/agent-definition.js';
import type { JobView } from '../../domain/provisioner-job-views.js';
import type { PlannedAgent, TemplateVersion, WorkspaceAgent, WorkspaceResource } from '../../sdk/wire/index.js';
import { parseJson } from '../../store/json-column.js';
import type { TemplateVersionRow, WorkspaceResourceRow } from '../../store/rows.js';
import { toWireJob } from './provisioner-job.js';
import { leanApp } from './workspace-agent.js';
import { toWireResource } from './workspace-resource.js';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * A template version as the API shows it. `template_id` is the nil UUID until a template adopts it;
 * the creator's empty avatar and the (never any) warnings are left out, as the reference does.
 */
export function toWireTemplateVersion(
  version: TemplateVersionRow,
  job: JobView,
  creator: { readonly id: string; readonly username: string; readonly avatar_url: string },
): TemplateVersion {
  return {
    id: version.id,
    template_id: version.template_id ?? NIL_UUID,
    organization_id: version.organization_id,
    created_at: version.created_at,
    updated_at: version.updated_at,
    name: version.name,
    message: version.message,
    job: toWireJob(job),
    readme: version.readme,
    created_by: { id: creator.id, username: creator.username, avatar_url: creator.avatar_url || undefined },
    archived: version.archived === 1,
    matched_provisioners: job.matchedProvisioners,
  };
}

/**
 * A resource of an import or dry run. Its agents are plans, not running agents: they have never
 * connected, and their ids are derived from the resource so that repeated reads agree.
 */
export function toWirePlannedResource(row: WorkspaceResourceRow): WorkspaceResource {
  const agents = parseJson<PlannedAgent[]>(row.planned_agents, []);
  return toWireResource(
    row,
    agents.map((agent, index) => plannedAgent(row, agent, index)),
  );
}

function plannedAgent(row: WorkspaceResourceRow, agent: PlannedAgent, index: number): WorkspaceAgent {
  const id = stableId(row.id, 'agent', index);
  return {
    id,
    resource_id: row.id,
    name: agent.name,
    created_at: row.created_at,
    updated_at: row.created_at,
    // A planned agent never connected: the times and latency the reference leaves out are left out.
    status: 'connecting',
    lifecycle_state: 'created',
    directory: agent.directory || undefined,
    operating_system: agent.operating_system,
    architecture: agent.architecture,
    instance_id: agent.instance_id || undefined,
    version: '',
    api_version: '',
    troubleshooting_url: agent.troubleshooting_url,
    connection_timeout_seconds: agent.connection_timeout_seconds,
    logs_length: 0,
    logs_overflowed: false,
    display_apps: [...agent.display_apps],
    subsystems: [],
    environment_variables: { ...agent.env },
    health: { healthy: false, reason: 'agent is not running' },
    startup_script_behavior: agent.startup_script_behavior,
    log_sources: [],
    parent_id: null,
    // Planned apps and scripts get the ids their agent would give them: stable across reads.
    apps: wireApps(id, agent, {}).map(leanApp),
    scripts: wireScripts(id, agent),
  };
}
