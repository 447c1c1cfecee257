import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type {
  AgentManifest,
  ManifestApp,
  ManifestScript,
  PlannedAgent,
  WorkspaceAgentScript,
  WorkspaceApp,
  WorkspaceAppStatus,
} from '../sdk/wire/index.js';
import { parseJson } from '../store/json-column.js';

/** Seconds between the stats reports an agent is asked for (reference §0). */
export const AGENT_STATS_INTERVAL_SECONDS = 30;

/**
 * A UUID derived from the agent and a name, so a script or app keeps the same id in every answer
 * and manifest without the build having to store one.
 */
export function stableId(agentId: string, kind: string, index: number): string {
  const hex = createHash('sha256').update(`${agentId}:${kind}:${index}`).digest('hex');
  // Shaped as a version-5 UUID, variant 10xx, so strict UUID checks accept it.
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The agent as its template declared it, read from the stored definition. */
export function readDefinition(definition: string): PlannedAgent {
  const parsed = parseJson<Partial<PlannedAgent>>(definition, {});
  return {
    name: parsed.name ?? '',
    directory: parsed.directory ?? '',
    env: parsed.env ?? {},
    operating_system: parsed.operating_system ?? '',
    architecture: parsed.architecture ?? '',
    connection_timeout_seconds: parsed.connection_timeout_seconds ?? 0,
    troubleshooting_url: parsed.troubleshooting_url ?? '',
    display_apps: parsed.display_apps ?? [],
    startup_script_behavior: parsed.startup_script_behavior ?? 'non-blocking',
    auth_token: '',
    instance_id: parsed.instance_id ?? '',
    scripts: parsed.scripts ?? [],
    apps: parsed.apps ?? [],
    ...(parsed.metadata ? { metadata: parsed.metadata } : {}),
  };
}

/** The agent's scripts with their ids and log source ids. */
export function agentScripts(agentId: string, definition: PlannedAgent): ManifestScript[] {
  return definition.scripts.map((script, index) => ({
    id: stableId(agentId, 'script', index),
    log_source_id: stableId(agentId, 'script-log-source', index),
    display_name: script.display_name,
    script: script.script,
    cron: script.cron,
    run_on_start: script.run_on_start,
    run_on_stop: script.run_on_stop,
    start_blocks_login: script.start_blocks_login,
    timeout: script.timeout,
    log_path: script.log_path,
  }));
}

/** The agent's scripts as the API shows them. */
export function wireScripts(agentId: string, definition: PlannedAgent): Static<typeof WorkspaceAgentScript>[] {
  return agentScripts(agentId, definition).map((script) => ({ ...script, timeout: Math.trunc(script.timeout) }));
}

/** The log sources every script has from the start, one per script, named after it. */
export function scriptLogSources(agentId: string, definition: PlannedAgent, createdAt: string) {
  return definition.scripts.map((script, index) => ({
    id: stableId(agentId, 'script-log-source', index),
    workspace_agent_id: agentId,
    created_at: createdAt,
    display_name: script.display_name,
    icon: '',
  }));
}

/** The agent's apps as the manifest gives them. */
export function manifestApps(agentId: string, definition: PlannedAgent): ManifestApp[] {
  return definition.apps.map((app, index) => ({
    id: stableId(agentId, 'app', index),
    slug: app.slug,
    url: app.url,
    healthcheck: app.healthcheck,
  }));
}

type AppHealth = WorkspaceApp['health'];

/**
 * The agent's apps as the API shows them; health is what the agent last reported, and `statuses`
 * (given newest first) are those the agent reported for each app.
 */
export function wireApps(
  agentId: string,
  definition: PlannedAgent,
  reported: Readonly<Record<string, string>>,
  statuses: readonly WorkspaceAppStatus[] = [],
): WorkspaceApp[] {
  return definition.apps.map((app, index) => {
    const id = stableId(agentId, 'app', index);
    const health: AppHealth = !app.healthcheck
      ? 'disabled'
      : ((['initializing', 'healthy', 'unhealthy'].includes(reported[id] ?? '') ? reported[id] : 'initializing') as AppHealth);
    return {
      id,
      slug: app.slug,
      display_name: app.display_name,
      url: app.url,
      command: app.command,
      icon: app.icon,
      external: app.external,
      subdomain: app.subdomain,
      subdomain_name: '',
      hidden: app.hidden,
      group: app.group,
      open_in: app.open_in,
      sharing_level: app.share,
      health,
      healthcheck: app.healthcheck
        ? { url: app.healthcheck.url, interval: Math.trunc(app.healthcheck.interval), threshold: Math.trunc(app.healthcheck.threshold) }
        : { url: '', interval: 0, threshold: 0 },
      statuses: statuses.filter((status) => status.app_id === id),
    };
  });
}

/** What a connecting agent is sent. */
export function buildManifest(input: {
  readonly agentId: string;
  readonly definition: PlannedAgent;
  readonly agentName: string;
  readonly ownerUsername: string;
  readonly workspaceId: string;
  readonly workspaceName: string;
}): AgentManifest {
  return {
    agent_id: input.agentId,
    agent_name: input.agentName,
    owner_username: input.ownerUsername,
    workspace_id: input.workspaceId,
    workspace_name: input.workspaceName,
    directory: input.definition.directory,
    environment_variables: { ...input.definition.env },
    scripts: agentScripts(input.agentId, input.definition),
    apps: manifestApps(input.agentId, input.definition),
    metadata: [...(input.definition.metadata ?? [])],
    stats_interval: AGENT_STATS_INTERVAL_SECONDS,
  };
}
