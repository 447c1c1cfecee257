// One status for a workspace that its build and its agents agree on. A build is "running" as soon
// as its resources exist, while the agents in them may still be connecting or running their
// startup scripts: the workspace is then starting, not running, and says so.
import type { Workspace, WorkspaceAgent } from '../../sdk/wire/index.js';
import { StatusBadge } from './status.js';

interface ShownStatus {
  /** The status key its color is chosen by. */
  readonly status: string;
  readonly label: string;
}

const STARTING_LIFECYCLES = new Set(['created', 'starting']);

function agentsOf(workspace: Workspace): WorkspaceAgent[] {
  return workspace.latest_build.resources.flatMap((resource) => resource.agents);
}

/** The workspace's state as a person means it: the build's, refined by its agents while the build is running. */
export function workspaceStatus(workspace: Workspace): ShownStatus {
  const build = workspace.latest_build.status;
  if (build !== 'running') return { status: build, label: build.replaceAll('_', ' ') };
  const agents = agentsOf(workspace);
  if (agents.some((agent) => agent.status === 'connecting' || STARTING_LIFECYCLES.has(agent.lifecycle_state)))
    return { status: 'starting', label: 'starting' };
  if (agents.some((agent) => agent.status === 'disconnected')) return { status: 'disconnected', label: 'agent disconnected' };
  if (agents.some((agent) => agent.status === 'timeout')) return { status: 'timeout', label: 'agent not connecting' };
  if (agents.some((agent) => agent.lifecycle_state === 'start_error')) return { status: 'start_error', label: 'running, startup failed' };
  if (agents.some((agent) => agent.lifecycle_state === 'start_timeout')) return { status: 'start_timeout', label: 'running, startup slow' };
  return { status: 'running', label: 'running' };
}

/** The badge of {@link workspaceStatus}. */
export function WorkspaceStatusBadge({ workspace }: { workspace: Workspace }) {
  const shown = workspaceStatus(workspace);
  return <StatusBadge status={shown.status} label={shown.label} />;
}
