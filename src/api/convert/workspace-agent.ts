import { readDefinition, scriptLogSources, wireApps, wireScripts } from '../../domain/agent-definition.js';
import { deriveAgentHealth, deriveAgentStatus, type AgentHealth } from '../../domain/agent-status.js';
import { toWireAppStatus } from '../../domain/app-statuses.js';
import { RELAY_REGION_NAME } from '../../domain/relay-map.js';
import type { WorkspaceAgent, WorkspaceApp } from '../../sdk/wire/index.js';
import { parseJson, parseStringArray } from '../../store/json-column.js';
import type { AgentLogSourceRow, AppStatusRow, WorkspaceAgentRow } from '../../store/rows.js';
import { withSubdomainNames, type AppLabelNames } from '../apps/app-request.js';

/** What an agent reports that its answer shows: its log sources (oldest first) and app statuses (newest first). */
export interface AgentReports {
  readonly sources: readonly AgentLogSourceRow[];
  readonly statuses: readonly AppStatusRow[];
}

/** The display apps the API reports; others the template names are dropped (reference §2.3). */
const DISPLAY_APPS = new Set(['vscode', 'vscode_insiders', 'web_terminal', 'port_forwarding_helper', 'ssh_helper']);

/**
 * An agent row as the API shows it: status and health derived at `now`, the template's definition
 * (directory, apps, scripts), log sources and app statuses. `labels` name subdomain apps when the
 * deployment serves them.
 */
export function toWireAgent(
  resourceId: string,
  agent: WorkspaceAgentRow,
  reports: AgentReports,
  now: Date,
  labels: AppLabelNames | undefined,
): WorkspaceAgent {
  const definition = readDefinition(agent.definition);
  const { status, disconnectedAt } = deriveAgentStatus(
    { ...agent, connection_timeout_seconds: definition.connection_timeout_seconds },
    now,
  );
  const stored = reports.sources.map((source) => ({
    id: source.id,
    workspace_agent_id: agent.id,
    created_at: source.created_at,
    display_name: source.display_name,
    icon: source.icon,
  }));
  const storedIds = new Set(stored.map((s) => s.id));
  const fromScripts = scriptLogSources(agent.id, definition, agent.created_at).filter((source) => !storedIds.has(source.id));
  return {
    id: agent.id,
    resource_id: resourceId,
    name: agent.name,
    created_at: agent.created_at,
    updated_at: agent.updated_at,
    first_connected_at: agent.first_connected_at || undefined,
    last_connected_at: agent.last_connected_at || undefined,
    disconnected_at: disconnectedAt || undefined,
    started_at: agent.started_at || undefined,
    ready_at: agent.ready_at || undefined,
    status,
    lifecycle_state: agent.lifecycle_state,
    directory: definition.directory || undefined,
    expanded_directory: agent.expanded_directory || undefined,
    operating_system: definition.operating_system,
    architecture: definition.architecture,
    instance_id: agent.auth_instance_id || undefined,
    version: agent.version,
    api_version: agent.api_version,
    troubleshooting_url: definition.troubleshooting_url,
    connection_timeout_seconds: Math.trunc(definition.connection_timeout_seconds),
    logs_length: agent.logs_length,
    logs_overflowed: agent.logs_overflowed === 1,
    display_apps: definition.display_apps.filter((app) => DISPLAY_APPS.has(app)),
    subsystems: [...parseStringArray(agent.subsystems)],
    environment_variables: { ...definition.env },
    health: leanHealth(deriveAgentHealth(status, agent.lifecycle_state)),
    latency: relayLatency(status, agent.last_stats),
    startup_script_behavior:
      definition.startup_script_behavior === 'blocking' || definition.scripts.some((s) => s.run_on_start && s.start_blocks_login)
        ? 'blocking'
        : 'non-blocking',
    log_sources: [...fromScripts, ...stored],
    parent_id: null,
    apps: withSubdomainNames(
      wireApps(agent.id, definition, parseJson<Record<string, string>>(agent.app_health, {}), reports.statuses.map(toWireAppStatus)),
      agent.name,
      labels,
    ).map(leanApp),
    scripts: wireScripts(agent.id, definition),
  };
}

/**
 * The agent's latency to the daemon, under the relay region's name as the reference keys it: the
 * round trip of its heartbeat, from its last stats report, while it is connected; left out otherwise.
 */
function relayLatency(status: WorkspaceAgent['status'], lastStats: string | null): WorkspaceAgent['latency'] {
  const latencyMs = parseJson<{ connection_median_latency_ms?: number }>(lastStats, {}).connection_median_latency_ms ?? 0;
  if (status !== 'connected' || !(latencyMs > 0)) return undefined;
  return { [RELAY_REGION_NAME]: { latency_ms: latencyMs, preferred: true } };
}

/** An app with the fields the reference's server leaves out when empty (`omitempty`) left out. */
export function leanApp(app: WorkspaceApp): WorkspaceApp {
  return {
    ...app,
    command: app.command || undefined,
    icon: app.icon || undefined,
    subdomain_name: app.subdomain_name || undefined,
    group: app.group || undefined,
  };
}

/** A healthy agent's health has no reason, left out as the reference leaves it out. */
function leanHealth(health: AgentHealth): WorkspaceAgent['health'] {
  return { healthy: health.healthy, reason: health.reason || undefined };
}
