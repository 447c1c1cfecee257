import { formatDuration } from '../../lib/duration.js';
import type { Workspace, WorkspaceAgent, WorkspaceResource } from '../../sdk/wire/index.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { humanTime, printJson } from '../output.js';
import { resolveWorkspace } from '../workspace-ref.js';

/** `cove show`: a workspace, its template version, and its resources and agents. */
export const showCommand: CommandSpec = {
  name: 'show',
  summary: 'Show a workspace, its resources and its agents',
  arguments: [{ name: 'workspace', description: 'NAME or OWNER/NAME', required: true }],
  examples: ['cove show dev', 'cove show alice/dev -o json'],
  async run(context, [name = ''], _options) {
    const client = await context.client();
    const workspace = await resolveWorkspace(client, name);
    if (context.json) {
      printJson(context.io, workspace);
      return 0;
    }
    const active = workspace.outdated
      ? await client.templateVersion(workspace.template_active_version_id).catch(() => undefined)
      : undefined;
    printDetails(context, workspace, active?.name);
    printResources(context, workspace.latest_build.resources);
    return 0;
  },
};

function printDetails(context: CommandContext, workspace: Workspace, activeVersionName: string | undefined): void {
  const build = workspace.latest_build;
  const version = workspace.outdated
    ? `${build.template_version_name} (outdated: the active version is ${activeVersionName ?? workspace.template_active_version_id}; run "cove update ${workspace.name}")`
    : build.template_version_name;
  const rows: [string, string][] = [
    ['workspace', `${workspace.owner_name}/${workspace.name}`],
    ['status', build.job.error ? `${build.status}: ${build.job.error}` : build.status],
    ['healthy', workspace.health.healthy ? 'yes' : `no (${workspace.health.failing_agents.length} failing agents)`],
    [
      'template',
      workspace.template_display_name ? `${workspace.template_name} (${workspace.template_display_name})` : workspace.template_name,
    ],
    ['version', version],
    ['organization', workspace.organization_name],
    ['last build', `#${build.build_number} ${build.transition} by ${build.initiator_name} at ${humanTime(build.created_at)}`],
    [
      'stops',
      build.deadline
        ? `at ${humanTime(build.deadline)}`
        : workspace.ttl_ms
          ? `${formatDuration(workspace.ttl_ms)} after each start`
          : 'manually',
    ],
    ['autostart', workspace.autostart_schedule ?? 'off'],
    ['automatic updates', workspace.automatic_updates],
    ['last used', humanTime(workspace.last_used_at)],
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  for (const [key, value] of rows) context.io.stdout.write(`${`${key}:`.padEnd(width + 2)}${value}\n`);
}

/** Resources as a small tree: each resource, then its agents with their status. */
function printResources(context: CommandContext, resources: readonly WorkspaceResource[]): void {
  const shown = resources.filter((r) => !r.hide);
  context.io.stdout.write(`\nResources${shown.length === 0 ? ': none' : ':'}\n`);
  for (const resource of shown) {
    context.io.stdout.write(`  ${resource.name} (${resource.type})\n`);
    for (const entry of resource.metadata ?? [])
      context.io.stdout.write(`    ${entry.key}: ${entry.sensitive ? '********' : entry.value}\n`);
    for (const agent of resource.agents) context.io.stdout.write(`    agent ${agent.name}: ${agentState(agent)}\n`);
  }
}

function agentState(agent: WorkspaceAgent): string {
  const lifecycle = agent.status === 'connected' && agent.lifecycle_state ? `, ${agent.lifecycle_state}` : '';
  const platform = agent.operating_system ? ` (${agent.operating_system}/${agent.architecture})` : '';
  const apps = agent.apps.length > 0 ? `; apps: ${agent.apps.map((app) => app.slug).join(', ')}` : '';
  return `${agent.status}${lifecycle}${platform}${apps}`;
}
