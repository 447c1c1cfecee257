import { randomBytes } from 'node:crypto';
import { createTar } from '../../lib/archive/index.js';
import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { NameValue, Organization, Template, Workspace } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import { SimulatedAgentFleet, type FleetOptions } from './agent-fleet.js';
import { mapLimit } from './map-limit.js';
import type { OperationStats } from './operation-stats.js';
import { SIMULATED_TEMPLATE, TOKEN_PARAMETER, newRunId, runName, simulatedTemplateEcho } from './scaletest-run.js';

/** What `create-workspaces` is asked to do. */
export interface CreateWorkspacesOptions {
  readonly count: number;
  /** The template's name; under `--simulated-agents`, {@link SIMULATED_TEMPLATE} (made if missing) when undefined. */
  readonly template?: string | undefined;
  /** The organization's name or id; the default organization when undefined. */
  readonly organization?: string | undefined;
  readonly parameters: readonly NameValue[];
  readonly concurrency: number;
  readonly simulatedAgents: boolean;
  readonly waitForAgents: boolean;
  readonly agentTimeoutMs: number;
  readonly fleet?: FleetOptions;
  readonly runId?: string;
}

/** A run's workspaces, with the simulated agents that answer for them (still connected) when asked for. */
export interface CreatedRun {
  readonly runId: string;
  readonly template: Template;
  readonly workspaces: readonly Workspace[];
  readonly agentsConnected: number;
  readonly fleet: SimulatedAgentFleet | undefined;
}

/**
 * Creates `count` users (`scaletest-<run>-<n>`, members of the organization) and one workspace each,
 * `concurrency` at a time, timing each step; then connects the simulated agents, or waits for the
 * real ones, unless told not to wait. Builds that fail count as errors of `build`.
 */
export async function createWorkspaces(client: CoveClient, options: CreateWorkspacesOptions, stats: OperationStats): Promise<CreatedRun> {
  const runId = options.runId ?? newRunId();
  const organization = await findOrganization(client, options.organization);
  const template = await findTemplate(client, organization, options);
  const created = await mapLimit(
    Array.from({ length: options.count }, (_, i) => i + 1),
    options.concurrency,
    async (index): Promise<{ workspace: Workspace; token: string } | undefined> => {
      const name = runName(runId, index);
      try {
        const user = await stats.time('create user', () =>
          client.createUser({
            email: `${name}@scaletest.example.com`,
            username: name,
            password: `Scaletest-${randomBytes(12).toString('hex')}`,
            organization_ids: [organization.id],
          }),
        );
        const token = options.simulatedAgents ? randomBytes(24).toString('hex') : '';
        const parameters = [...options.parameters, ...(token ? [{ name: TOKEN_PARAMETER, value: token }] : [])];
        const workspace = await stats.time('create workspace', () =>
          client.createWorkspace(user.username, { name, template_id: template.id, rich_parameter_values: parameters }),
        );
        const started = performance.now();
        await client.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
        const build = await client.workspaceBuild(workspace.latest_build.id);
        if (build.job.status !== 'succeeded') {
          stats.fail('build', `${name}: the build ${build.job.status}${build.job.error ? `: ${build.job.error}` : ''}`);
          return undefined;
        }
        stats.record('build', performance.now() - started);
        return { workspace: { ...workspace, latest_build: build }, token };
      } catch (error) {
        // The failed step counted it already (create user, create workspace); anything else is the build's.
        if (!(error instanceof ApiError)) stats.fail('build', `${name}: ${(error as Error).message}`);
        return undefined;
      }
    },
  );
  const done = created.filter((entry) => entry !== undefined);
  const workspaces = done.map((entry) => entry.workspace);
  let fleet: SimulatedAgentFleet | undefined;
  let agentsConnected = 0;
  if (options.simulatedAgents) {
    fleet = new SimulatedAgentFleet(
      client.url,
      done.map((entry) => entry.token),
      options.fleet,
    );
    const started = performance.now();
    agentsConnected = await fleet.connect(options.concurrency, options.waitForAgents ? options.agentTimeoutMs : 0);
    if (options.waitForAgents) {
      stats.record('connect agents', performance.now() - started);
      if (agentsConnected < workspaces.length)
        stats.fail(
          'connect agents',
          `${workspaces.length - agentsConnected} simulated agents did not connect in ${options.agentTimeoutMs / 1000} s`,
        );
    }
  } else if (options.waitForAgents) {
    agentsConnected = await waitForRealAgents(client, workspaces, options, stats);
  }
  return { runId, template, workspaces, agentsConnected, fleet };
}

async function findOrganization(client: CoveClient, name: string | undefined): Promise<Organization> {
  if (name) return client.organization(name);
  const all = await client.organizations();
  const found = all.find((org) => org.is_default) ?? all[0];
  if (!found) throw new CliError('You are a member of no organization.', { hint: 'Pass --org NAME.' });
  return found;
}

async function findTemplate(client: CoveClient, organization: Organization, options: CreateWorkspacesOptions): Promise<Template> {
  if (!options.template && !options.simulatedAgents)
    throw new CliError('Which template? --template is required without --simulated-agents.', {
      hint: 'Pass --template NAME, or --simulated-agents to use an echo template whose agents this command runs.',
    });
  const name = options.template ?? SIMULATED_TEMPLATE;
  let template: Template;
  try {
    template = await client.templateByName(organization.id, name);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    if (options.template)
      throw new CliError(`There is no template "${name}" in organization ${organization.name}.`, {
        hint: 'Run "cove templates list" to see them.',
      });
    template = await createSimulatedTemplate(client, organization);
  }
  if (options.simulatedAgents) {
    const parameters = await client.templateVersionRichParameters(template.active_version_id);
    if (!parameters.some((p) => p.name === TOKEN_PARAMETER))
      throw new CliError(`Template "${name}" cannot run simulated agents: it has no ${TOKEN_PARAMETER} parameter.`, {
        hint: `Leave out --template to use the "${SIMULATED_TEMPLATE}" echo template, or see docs/scaletest.md for what such a template declares.`,
      });
  }
  return template;
}

/** The echo template whose agent's token is a build parameter, for `--simulated-agents`. */
async function createSimulatedTemplate(client: CoveClient, organization: Organization): Promise<Template> {
  const { id } = await client.uploadFile(await createTar({ 'echo.json': JSON.stringify(simulatedTemplateEcho()) }));
  const version = await client.createTemplateVersion(organization.id, { file_id: id, provisioner: 'echo' });
  await client.followTemplateVersionLogs(version.id, () => undefined);
  const done = await client.templateVersion(version.id);
  if (done.job.status !== 'succeeded')
    throw new CliError(`The "${SIMULATED_TEMPLATE}" template could not be imported: ${done.job.error || done.job.status}.`, {
      hint: 'Simulated agents need the echo provisioner: the daemon must run a provisioner that accepts echo templates.',
    });
  try {
    return await client.createTemplate(organization.id, {
      name: SIMULATED_TEMPLATE,
      display_name: 'Scale test (simulated agents)',
      description: 'Workspaces whose agents `cove scaletest --simulated-agents` runs; made by cove scaletest.',
      template_version_id: version.id,
    });
  } catch (error) {
    // Another run made it meanwhile.
    if (error instanceof ApiError && error.status === 409) return client.templateByName(organization.id, SIMULATED_TEMPLATE);
    throw error;
  }
}

/** Polls each workspace's agents until all are connected or the timeout passes; returns how many are. */
async function waitForRealAgents(
  client: CoveClient,
  workspaces: readonly Workspace[],
  options: CreateWorkspacesOptions,
  stats: OperationStats,
): Promise<number> {
  const started = performance.now();
  const deadline = Date.now() + options.agentTimeoutMs;
  const connected = await mapLimit(workspaces, options.concurrency, async (workspace) => {
    const agents = workspace.latest_build.resources.flatMap((resource) => resource.agents);
    for (const agent of agents) {
      for (;;) {
        const now = await client.workspaceAgent(agent.id);
        if (now.status === 'connected') break;
        if (Date.now() > deadline) {
          stats.fail(
            'connect agents',
            `${workspace.owner_name}/${workspace.name}.${agent.name} is ${now.status} after ${options.agentTimeoutMs / 1000} s`,
          );
          return 0;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    return 1;
  });
  stats.record('connect agents', performance.now() - started);
  return connected.reduce<number>((a, b) => a + b, 0);
}
