import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { WorkspaceAgentContainer, WorkspaceAgentContainersResponse, WorkspaceAgentDevcontainer } from '../sdk/wire/relay-protocol.js';
import { AgentRequestError } from './agent-request-error.js';
import { convertDockerInspect } from './containers/docker-inspect.js';
import { runCommand, type CommandResult } from './containers/run-command.js';

export interface ContainerListerOptions {
  /** The docker CLI (`docker`). */
  readonly docker?: string;
  /** The devcontainer CLI (`devcontainer`). */
  readonly devcontainerCli?: string;
  /** Receives each output line of `devcontainer up`, for the agent's logs. */
  readonly onLog?: (line: string) => void;
  /** The limit of each docker command (15 000 ms). */
  readonly timeoutMs?: number;
}

export interface ContainerLister {
  /** The containers docker knows, the devcontainers among them, and what went wrong as warnings. */
  list(): Promise<WorkspaceAgentContainersResponse>;
  /**
   * Starts `devcontainer up --remove-existing-container` for a devcontainer and resolves at once;
   * its status is `starting` until that ends (`running`, or `error` with the reason).
   */
  recreate(id: string): Promise<{ name: string }>;
}

/** Labels the devcontainer CLI puts on the containers it creates. */
export const DEVCONTAINER_LOCAL_FOLDER_LABEL = 'devcontainer.local_folder';
export const DEVCONTAINER_CONFIG_FILE_LABEL = 'devcontainer.config_file';
export const DEVCONTAINER_IS_TEST_RUN_LABEL = 'devcontainer.is_test_run';

export type DevcontainerStatus = 'running' | 'stopped' | 'starting' | 'stopping' | 'deleting' | 'error';

const TRANSITIONING: ReadonlySet<DevcontainerStatus> = new Set(['starting', 'stopping', 'deleting']);

/** What the agent remembers about one devcontainer between lists. */
interface DevcontainerState {
  readonly id: string;
  readonly name: string;
  readonly workspaceFolder: string;
  configPath: string;
  status: DevcontainerStatus;
  dirty: boolean;
  error: string | undefined;
  container: WorkspaceAgentContainer | undefined;
  /** When the last recreate failed: older containers do not clear the `error` status. */
  errorAt: number | undefined;
}

/** What one docker query found. */
interface DockerSnapshot {
  /** Which query this is: a snapshot older than one already applied is not applied. */
  readonly seq: number;
  readonly ok: boolean;
  readonly containers: WorkspaceAgentContainer[];
  readonly warnings: string[];
}

/**
 * Answers the daemon's `containers` and `recreate_devcontainer` questions through the docker and
 * devcontainer CLIs. Listing never throws: a missing CLI or an unreachable engine is a warning.
 * Devcontainers (containers labelled `devcontainer.local_folder`) are remembered between lists, so
 * a recreate's `starting` → `running` / `error` is visible to the next list.
 */
export function createContainerLister(options: ContainerListerOptions = {}): ContainerLister {
  const docker = options.docker ?? 'docker';
  const devcontainerCli = options.devcontainerCli ?? 'devcontainer';
  const timeoutMs = options.timeoutMs ?? 15_000;
  const onLog = options.onLog ?? (() => undefined);
  const known = new Map<string, DevcontainerState>();
  let inflight: Promise<DockerSnapshot> | undefined;
  let listedOnce = false;
  let querySeq = 0;
  let appliedSeq = 0;
  const apply = (snapshot: DockerSnapshot | undefined): void => {
    if (snapshot?.ok !== true || snapshot.seq < appliedSeq) return;
    appliedSeq = snapshot.seq;
    updateDevcontainers(known, snapshot.containers);
  };

  const queryDocker = async (): Promise<DockerSnapshot> => {
    const seq = ++querySeq;
    const ps = await runCommand(docker, ['ps', '--all', '--quiet', '--no-trunc'], { timeoutMs });
    if (ps.kind !== 'exited' || ps.code !== 0) return { seq, ok: false, containers: [], warnings: dockerFailure(docker, 'ps', ps) ?? [] };
    const warnings = stderrWarnings(ps.stderr);
    const ids = ps.stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (ids.length === 0) return { seq, ok: true, containers: [], warnings };

    const inspect = await runCommand(docker, ['inspect', ...ids], { timeoutMs });
    if (inspect.kind !== 'exited')
      return { seq, ok: false, containers: [], warnings: [...warnings, ...(dockerFailure(docker, 'inspect', inspect) ?? [])] };
    // A container removed since `docker ps` makes inspect exit 1 with "No such object" while it
    // still prints the others: that is not a failure.
    const vanished = /no such (object|container)/i.test(inspect.stderr);
    if (inspect.code !== 0 && !(vanished && inspect.stdout.trim().startsWith('['))) {
      return { seq, ok: false, containers: [], warnings: [...warnings, ...(dockerFailure(docker, 'inspect', inspect) ?? [])] };
    }
    const converted = convertDockerInspect(inspect.stdout.trim() === '' ? '[]' : inspect.stdout);
    return {
      seq,
      ok: true,
      containers: converted.containers,
      warnings: [...warnings, ...stderrWarnings(inspect.stderr), ...converted.warnings],
    };
  };

  const refresh = async (): Promise<DockerSnapshot> => {
    inflight ??= queryDocker().finally(() => {
      inflight = undefined;
    });
    const snapshot = await inflight;
    apply(snapshot);
    listedOnce = true;
    return snapshot;
  };

  const runRecreate = async (state: DevcontainerState): Promise<void> => {
    const args = ['up', '--workspace-folder', state.workspaceFolder];
    if (state.configPath !== '') args.push('--config', state.configPath);
    args.push('--remove-existing-container');
    onLog(`Recreating devcontainer "${state.name}": ${devcontainerCli} ${args.join(' ')}`);
    const result = await runCommand(devcontainerCli, args, { onLine: (_stream, line) => onLog(line) });
    const outcome = recreateOutcome(devcontainerCli, result);
    // Look the new container up before leaving `starting`, so no list sees a running devcontainer without it.
    const snapshot = await queryDocker().catch(() => undefined);
    if (outcome.error === undefined) {
      state.status = 'running';
      state.dirty = false;
      onLog(`Devcontainer "${state.name}" recreated.`);
    } else {
      // A container that came up but whose lifecycle scripts failed still runs; otherwise it is an error.
      state.status = outcome.containerCreated ? 'running' : 'error';
      state.error = outcome.error;
      state.errorAt = outcome.containerCreated ? undefined : Date.now();
      if (outcome.containerCreated) state.dirty = false;
      onLog(`Recreating devcontainer "${state.name}" failed: ${outcome.error}`);
    }
    apply(snapshot);
  };

  return {
    async list() {
      const snapshot = await refresh();
      const devcontainers = [...known.values()]
        // Without docker's answer, only what the agent itself decides is known: recreates in flight or failed.
        .filter((state) => snapshot.ok || state.status === 'starting' || state.status === 'error')
        .sort((a, b) => a.name.localeCompare(b.name) || a.workspaceFolder.localeCompare(b.workspaceFolder))
        .map((state) => toWire(state, snapshot.ok));
      return { containers: snapshot.containers, devcontainers, warnings: snapshot.warnings };
    },

    async recreate(id) {
      if (!listedOnce) await refresh();
      const state = known.get(id);
      if (state === undefined)
        throw new AgentRequestError(404, 'Devcontainer not found.', `Devcontainer with ID ${JSON.stringify(id)} not found.`);
      if (TRANSITIONING.has(state.status)) {
        throw new AgentRequestError(
          409,
          'Unable to recreate transitioning devcontainer',
          `Devcontainer ${JSON.stringify(state.name)} is currently ${state.status} and cannot be recreated.`,
        );
      }
      state.status = 'starting';
      state.error = undefined;
      state.errorAt = undefined;
      state.container = undefined;
      void runRecreate(state).catch((error: unknown) => {
        state.status = 'error';
        state.error = error instanceof Error ? error.message : String(error);
        state.errorAt = Date.now();
      });
      return { name: state.name };
    },
  };
}

/** The stable id of the devcontainer of a workspace folder: a UUID (version 5 layout) of the folder. */
export function devcontainerId(workspaceFolder: string): string {
  const bytes = createHash('sha1').update('cove-devcontainer\0').update(workspaceFolder).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Folds one docker listing into the remembered devcontainers. */
function updateDevcontainers(known: Map<string, DevcontainerState>, containers: readonly WorkspaceAgentContainer[]): void {
  // Per workspace folder, the container that stands for it: a running one, else the newest.
  const byFolder = new Map<string, WorkspaceAgentContainer>();
  for (const container of containers) {
    const folder = container.labels[DEVCONTAINER_LOCAL_FOLDER_LABEL];
    if (folder === undefined || folder === '' || container.labels[DEVCONTAINER_IS_TEST_RUN_LABEL] === 'true') continue;
    const chosen = byFolder.get(folder);
    if (chosen === undefined || preferContainer(container, chosen)) byFolder.set(folder, container);
  }
  const seen = new Set<string>();
  for (const [folder, container] of byFolder) {
    const id = devcontainerId(folder);
    seen.add(id);
    let state = known.get(id);
    if (state === undefined) {
      state = {
        id,
        name: basename(folder) || folder,
        workspaceFolder: folder,
        configPath: '',
        status: 'stopped',
        dirty: false,
        error: undefined,
        container: undefined,
        errorAt: undefined,
      };
      known.set(id, state);
    }
    const configFile = container.labels[DEVCONTAINER_CONFIG_FILE_LABEL];
    if (configFile !== undefined && configFile !== '') state.configPath = configFile;
    // While a recreate runs, the container docker still shows is the one being replaced.
    if (state.status === 'starting') continue;
    state.container = container;
    if (state.status === 'error' && (state.errorAt === undefined || createdAt(container) <= state.errorAt)) continue;
    if (state.status === 'error') state.error = undefined; // a newer container replaced the failed one
    state.status = container.running ? 'running' : 'stopped';
    state.errorAt = undefined;
  }
  for (const [id, state] of known) {
    if (seen.has(id)) continue;
    if (state.status === 'starting' || state.status === 'error') {
      state.container = undefined;
      continue;
    }
    known.delete(id); // its container is gone
  }
}

function preferContainer(candidate: WorkspaceAgentContainer, current: WorkspaceAgentContainer): boolean {
  if (candidate.running !== current.running) return candidate.running;
  return createdAt(candidate) > createdAt(current);
}

function createdAt(container: WorkspaceAgentContainer): number {
  const ms = Date.parse(container.created_at);
  return Number.isNaN(ms) ? 0 : ms;
}

function toWire(state: DevcontainerState, withContainer: boolean): WorkspaceAgentDevcontainer {
  const wire: WorkspaceAgentDevcontainer = {
    id: state.id,
    name: state.name,
    config_path: state.configPath,
    workspace_folder: state.workspaceFolder,
    status: state.status,
    dirty: state.dirty,
  };
  if (state.error !== undefined) wire.error = state.error;
  if (withContainer && state.container !== undefined) wire.container = state.container;
  return wire;
}

/** The warnings for a docker command that did not give an answer, or undefined when it did. */
function dockerFailure(docker: string, command: string, result: CommandResult): string[] | undefined {
  switch (result.kind) {
    case 'missing':
      return [`the docker CLI is not installed on this workspace (${JSON.stringify(docker)} was not found)`];
    case 'failed':
      return [`docker ${command} could not be started: ${result.message}`];
    case 'timeout':
      return [`docker ${command} did not answer within the time limit`, ...stderrWarnings(result.stderr).map((line) => `docker: ${line}`)];
    case 'exited': {
      if (result.code === 0) return undefined;
      const lines = stderrWarnings(result.stderr).map((line) => (/^docker\b/i.test(line) ? line : `docker: ${line}`));
      return lines.length > 0 ? lines : [`docker ${command} exited with code ${result.code}`];
    }
  }
}

/** Non-empty stderr lines, without the expected noise of a container that vanished between calls. */
function stderrWarnings(stderr: string): string[] {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/no such (object|container)/i.test(line));
}

/**
 * How `devcontainer up` ended. Its last stdout line is a JSON result
 * (`{"outcome":"success"|"error","message"?,"description"?,"containerId"?}`); a container id on an
 * error means the container came up and only a lifecycle script failed.
 */
function recreateOutcome(cli: string, result: CommandResult): { error?: string; containerCreated: boolean } {
  switch (result.kind) {
    case 'missing':
      return {
        error: `the devcontainer CLI is not installed on this workspace (${JSON.stringify(cli)} was not found); install it with "npm install -g @devcontainers/cli"`,
        containerCreated: false,
      };
    case 'failed':
      return { error: `devcontainer up could not be started: ${result.message}`, containerCreated: false };
    case 'timeout':
      return { error: 'devcontainer up did not finish in time', containerCreated: false };
    case 'exited': {
      const outcome = lastJsonLine(result.stdout);
      if (result.code === 0 && outcome?.outcome !== 'error') return { containerCreated: true };
      const reason = [outcome?.message, outcome?.description]
        .filter((part): part is string => typeof part === 'string' && part !== '')
        .join(': ');
      const lastStderr = stderrWarnings(result.stderr).at(-1);
      const error = `devcontainer up exited with code ${result.code}${reason !== '' ? `: ${reason}` : lastStderr !== undefined ? `: ${lastStderr}` : ''}`;
      return { error, containerCreated: typeof outcome?.containerId === 'string' && outcome.containerId !== '' };
    }
  }
}

function lastJsonLine(stdout: string): { outcome?: unknown; message?: unknown; description?: unknown; containerId?: unknown } | undefined {
  const lines = stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('{'));
  const last = lines.at(-1);
  if (last === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(last);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
