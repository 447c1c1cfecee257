import type { CoveClient } from '../sdk/client.js';
import type { Workspace, WorkspaceAgent } from '../sdk/wire/index.js';
import { AgentUnreachableError } from './agent-unreachable-error.js';
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
 * What to wait for before using the agent: nothing, its connection, also the start scripts the
 * template marked `start_blocks_login` (the default, the reference's `--wait=auto`), or every start
 * script (`--wait=yes`).
 */
export type AgentWait = 'none' | 'connect' | 'blocking' | 'all';

/** How to resolve an agent. */
export interface ResolveAgentOptions {
  readonly io: CliIo;
  readonly wait?: AgentWait;
  /** Starts a stopped workspace (as `cove ssh` does unless told not to); without it a stopped workspace is an error. */
  readonly start?: (workspace: Workspace, label: string) => Promise<void>;
}

/**
 * Reads `WORKSPACE[.AGENT]` (WORKSPACE being `name` or `owner/name`) and finds the agent: the one
 * named, or the workspace's only one. The agent is waited for as `wait` says, saying so on stderr;
 * a stopped workspace (unless `start` starts it) or a disconnected agent is a CliError saying what
 * to do.
 */
export async function resolveWorkspaceAgent(client: CoveClient, text: string, options: ResolveAgentOptions): Promise<ResolvedAgent> {
  const [workspaceText = '', agentName] = splitAgent(text);
  const ref = parseWorkspaceRef(workspaceText);
  let workspace = await resolveWorkspace(client, ref);
  const label = ref.text;
  const stopped = (build: Workspace['latest_build']) =>
    build.transition === 'stop' && (build.status === 'stopped' || build.status === 'failed' || build.status === 'canceled');
  if (options.start && stopped(workspace.latest_build)) {
    await options.start(workspace, label);
    workspace = await resolveWorkspace(client, ref);
  }
  const build = workspace.latest_build;
  if (build.transition !== 'start' || (build.status !== 'running' && build.status !== 'starting' && build.status !== 'pending')) {
    throw new CliError(`Workspace "${label}" is ${build.status}.`, { hint: `Start it with "cove start ${label}".` });
  }
  let agent = pickAgent(workspace, label, agentName);
  const wait = options.wait ?? 'blocking';
  if (wait === 'none') return { workspace, agent, label };
  const deadline = Date.now() + AGENT_WAIT_MS;
  let said = '';
  while (agent.status !== 'connected' || startScriptsHold(agent, wait)) {
    if (agent.status === 'disconnected' || agent.status === 'timeout') {
      throw new AgentUnreachableError(`The agent "${agent.name}" of workspace "${label}" is ${agent.status}.`, {
        hint: `Check that the workspace is running ("cove show ${label}"), or restart it with "cove restart ${label}".`,
      });
    }
    if (Date.now() > deadline)
      throw new AgentUnreachableError(
        `The agent "${agent.name}" of workspace "${label}" did not connect within ${AGENT_WAIT_MS / 1000} s.`,
        {
          hint: `See "cove show ${label}".`,
        },
      );
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

/** Whether start scripts still running keep the caller waiting: the blocking ones, or with `all` any. */
function startScriptsHold(agent: WorkspaceAgent, wait: AgentWait): boolean {
  const running = agent.lifecycle_state === 'created' || agent.lifecycle_state === 'starting';
  if (wait === 'all') return running;
  return wait === 'blocking' && running && agent.startup_script_behavior === 'blocking';
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
