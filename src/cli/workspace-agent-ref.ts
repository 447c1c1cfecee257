import type { CoveClient } from '../sdk/client.js';
import type { Workspace, WorkspaceAgent } from '../sdk/wire/index.js';
import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';
import { parseWorkspaceRef, resolveWorkspace } from './workspace-ref.js';

/** A workspace's agent, found from what the user typed. */
export interface ResolvedAgent {
  readonly workspace: Workspace;
  readonly agent: WorkspaceAgent;
  /** What the user typed, for messages. */
  readonly label: string;
}

/** How long commands wait for an agent that is still connecting. */
const AGENT_WAIT_MS = 120_000;
const POLL_MS = 500;

/**
 * Reads `WORKSPACE[.AGENT]` (WORKSPACE being `name` or `owner/name`) and finds the agent: the one
 * named, or the workspace's only one. With `wait`, an agent that is still connecting, or whose
 * `start_blocks_login` scripts still run, is waited for, saying so on stderr; a stopped workspace
 * or a disconnected agent is a CliError saying what to do.
 */
export async function resolveWorkspaceAgent(
  client: CoveClient,
  text: string,
  options: { readonly io: CliIo; readonly wait?: boolean },
): Promise<ResolvedAgent> {
  const [workspaceText = '', agentName] = splitAgent(text);
  const ref = parseWorkspaceRef(workspaceText);
  let workspace = await resolveWorkspace(client, ref);
  const label = ref.text;
  const build = workspace.latest_build;
  if (build.transition !== 'start' || (build.status !== 'running' && build.status !== 'starting' && build.status !== 'pending')) {
    throw new CliError(`Workspace "${label}" is ${build.status}.`, { hint: `Start it with "cove start ${label}".` });
  }
  let agent = pickAgent(workspace, label, agentName);
  if (options.wait === false) return { workspace, agent, label };
  const deadline = Date.now() + AGENT_WAIT_MS;
  let said = '';
  while (agent.status !== 'connected' || startScriptsBlockLogin(agent)) {
    if (agent.status === 'disconnected' || agent.status === 'timeout') {
      throw new CliError(`The agent "${agent.name}" of workspace "${label}" is ${agent.status}.`, {
        hint: `Check that the workspace is running ("cove show ${label}"), or restart it with "cove restart ${label}".`,
      });
    }
    if (Date.now() > deadline)
      throw new CliError(`The agent "${agent.name}" of workspace "${label}" did not connect within ${AGENT_WAIT_MS / 1000} s.`, {
        hint: `See "cove show ${label}".`,
      });
    const waitingFor = agent.status === 'connected' ? 'finish its start scripts' : 'connect';
    if (said !== waitingFor) options.io.stderr.write(`Waiting for the agent "${agent.name}" of workspace "${label}" to ${waitingFor}...\n`);
    said = waitingFor;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    workspace = await resolveWorkspace(client, ref);
    agent = pickAgent(workspace, label, agentName);
  }
  if (agent.lifecycle_state === 'start_error' || agent.lifecycle_state === 'start_timeout') {
    options.io.stderr.write(
      `Warning: the start scripts of agent "${agent.name}" ${agent.lifecycle_state === 'start_error' ? 'failed' : 'timed out'}; the workspace may not be fully set up. See "cove logs ${label}".\n`,
    );
  }
  return { workspace, agent, label };
}

/** Whether a start script the template marked `start_blocks_login` is still running. */
function startScriptsBlockLogin(agent: WorkspaceAgent): boolean {
  return agent.startup_script_behavior === 'blocking' && (agent.lifecycle_state === 'created' || agent.lifecycle_state === 'starting');
}

/** `dev.main` → [`dev`, `main`]; `alice/dev` → [`alice/dev`]. Workspace and agent names have no dots. */
function splitAgent(text: string): [string, string | undefined] {
  const at = text.lastIndexOf('.');
  if (at <= text.lastIndexOf('/')) return [text, undefined];
  return [text.slice(0, at), text.slice(at + 1)];
}

function pickAgent(workspace: Workspace, label: string, name: string | undefined): WorkspaceAgent {
  const agents = workspace.latest_build.resources.flatMap((resource) => resource.agents);
  if (agents.length === 0)
    throw new CliError(`Workspace "${label}" has no agents.`, { hint: 'Its template defines none, so there is nothing to connect to.' });
  if (name !== undefined) {
    const found = agents.find((agent) => agent.name === name);
    if (!found)
      throw new CliError(`Workspace "${label}" has no agent "${name}".`, {
        hint: `Its agents: ${agents.map((agent) => agent.name).join(', ')}.`,
      });
    return found;
  }
  const [only] = agents;
  if (agents.length > 1 || !only)
    throw new CliError(`Workspace "${label}" has several agents: ${agents.map((agent) => agent.name).join(', ')}.`, {
      hint: `Name one as ${label}.AGENT.`,
    });
  return only;
}
