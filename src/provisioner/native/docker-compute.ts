import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { ProvisionerError, throwIfCanceled, type PlannedAgent } from '../provisioner.js';
import { ComputePartialFailure, type Compute, type ComputeContext, type JsonValue } from './compute.js';
import type { ResourceSpec } from './expand-resources.js';
import { runCommand, type CommandResult } from './hook-compute.js';
import { requireAgentCommand, scrubbedEnvironment, stageOf, tokenHash } from './process-compute.js';

/** Options of the docker compute. */
export interface DockerComputeOptions {
  /** The command that starts a workspace agent on this host; its files are mounted into containers. */
  readonly agentCommand?: readonly string[];
  /** The environment the docker CLI runs with (PATH, DOCKER_HOST, DOCKER_CONTEXT...); defaults to this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The network containers join. Defaults to `host`: the agent dials the access URL, which for a
   * daemon on this machine is often `http://127.0.0.1:...`, and only the host network reaches that.
   * The price is that the ports a workspace listens on are the host's.
   */
  readonly network?: string;
  /** Seconds `docker stop` waits before it kills the container. Defaults to 10. */
  readonly stopTimeoutSeconds?: number;
}

/** The container a start left, as the state records it. */
interface ContainerRecord {
  readonly id: string;
  readonly name: string;
  readonly image: string;
  /** A hash of the agent's token, to tell a retry of the same build from a new build. */
  readonly token_sha256: string;
}

/** What the state records for a docker resource. */
interface DockerState {
  /** The running container; null after a stop. */
  readonly container: ContainerRecord | null;
  /** Named volumes this resource created (not those that existed before), removed on delete. */
  readonly volumes: readonly string[];
}

/** Where the host's agent files appear inside a container: under a prefix, so no image file is hidden. */
export const CONTAINER_HOST_ROOT = '/opt/cove/host';
/**
 * Where the agent executable is copied to when COVE_DOCKER_COPY_AGENT=1. A daemon that runs in a
 * container itself (the Cove image, with the engine's socket mounted) cannot bind-mount its own
 * files: the engine would look for them on its host. `docker cp` sends the file through the API
 * instead, into the root, which every image has (the copy cannot create parent directories).
 */
export const COPIED_AGENT_PATH = '/.cove-agent';
/** One docker CLI call (a pull included) may take this long. */
const COMMAND_TIMEOUT_MS = 30 * 60_000;
const QUICK_TIMEOUT_MS = 60_000;
const ENGINE_CHECK_TIMEOUT_MS = 20_000;
const LABEL_WORKSPACE = 'cove.workspace_id';
const LABEL_RESOURCE = 'cove.resource';

/**
 * The `docker` compute: one container per resource, through the docker CLI (so `DOCKER_HOST` and
 * docker contexts work as they do for the operator). The container runs the resource's agent with
 * the agent command's files mounted read-only under /opt/cove/host (the single executable, when the
 * daemon runs from it, is that one file), on the host network, named after the workspace. A start
 * creates a new container (the agent's token is in its environment, and the image may have
 * changed), a stop removes it, and a delete also removes the named volumes the resource created;
 * what must persist belongs in a volume, as the `docker` example's home does.
 */
export function createDockerCompute(options: DockerComputeOptions = {}): Compute {
  const docker = createDockerCli(options.env ?? process.env);
  const copyAgent = (options.env ?? process.env)['COVE_DOCKER_COPY_AGENT'] === '1';
  const stopTimeout = String(options.stopTimeoutSeconds ?? 10);
  return {
    type: 'docker',
    async preflight(context) {
      // A stop or delete needs the engine only when the state records something; they check then.
      if (context.transition !== 'start') return;
      requireAgentCommand(options.agentCommand, 'docker');
      await docker.checkEngine(context);
    },
    async start({ resource, agents, previous, context }) {
      const before = asDockerState(previous);
      let state: DockerState = { container: before?.container ?? null, volumes: [...(before?.volumes ?? [])] };
      try {
        const agent = singleAgent(resource, agents);
        const command = agent === undefined ? undefined : requireAgentCommand(options.agentCommand, 'docker');
        await docker.checkEngine(context);
        const image = resource.image ?? '';
        if (state.container !== null) {
          if (agent !== undefined && (await isCurrent(docker, state.container, image, agent, context))) {
            log(context, 'info', `Container ${state.container.name} is already running`);
            return stateJson(state);
          }
          await docker.removeContainer(state.container.id, context);
          log(context, 'info', `Removed container ${state.container.name} of the previous build`);
          state = { ...state, container: null };
        }
        const name = containerName(context, resource);
        await removeLeftover(docker, name, context);
        for (const volume of namedVolumes(resource)) {
          if (await docker.createVolumeIfMissing(volume, labels(context, resource), context))
            state = { ...state, volumes: [...state.volumes, volume] };
        }
        const request = { resource, agent, command, name, network: options.network ?? 'host', context };
        const id =
          copyAgent && agent !== undefined && command !== undefined
            ? await docker.runWithCopy(await runArguments(request, true), await realExecutablePath(command[0]), agent.auth_token, context)
            : await docker.run(await runArguments(request, false), agent?.auth_token ?? '', context);
        log(context, 'info', `Started container ${name} (${id.slice(0, 12)}) from ${image}`);
        state = { ...state, container: { id, name, image, token_sha256: tokenHash(agent?.auth_token ?? '') } };
      } catch (error) {
        throw new ComputePartialFailure(error, stateJson(state));
      }
      return stateJson(state);
    },
    async stop({ previous, context }) {
      const state = asDockerState(previous) ?? { container: null, volumes: [] };
      if (state.container === null) return stateJson(state);
      await docker.checkEngine(context);
      await docker.call(['stop', '--time', stopTimeout, state.container.id], context, { missingIsFine: true });
      await docker.removeContainer(state.container.id, context);
      log(context, 'info', `Stopped and removed container ${state.container.name}`);
      return stateJson({ ...state, container: null });
    },
    async delete({ previous, context }) {
      const state = asDockerState(previous);
      if (state === undefined || (state.container === null && state.volumes.length === 0)) return;
      await docker.checkEngine(context);
      if (state.container !== null) {
        await docker.removeContainer(state.container.id, context);
        log(context, 'info', `Removed container ${state.container.name}`);
      }
      for (const volume of state.volumes) {
        throwIfCanceled(context.signal);
        await docker.call(['volume', 'rm', '--force', volume], context, { missingIsFine: true });
        log(context, 'info', `Removed volume ${volume}`);
      }
    },
  };
}

/**
 * How the agent command runs inside a container: the executable is mounted by itself, and each
 * other argument that is a file on this host (the `bin/cove` script) brings the whole package it
 * belongs to (the nearest directory with a package.json: `dist/` and `node_modules/` come along).
 * Everything is mounted read-only under CONTAINER_HOST_ROOT at its real host path. A node binary
 * mounted this way needs a glibc-based image (with libstdc++, which every apt/dnf-based one has).
 */
export async function containerAgentCommand(
  command: readonly [string, ...string[]],
): Promise<{ readonly mounts: readonly string[]; readonly entrypoint: string; readonly args: readonly string[] }> {
  const [executable, ...rest] = command;
  const realExecutable = await realExecutablePath(executable);
  const roots = [realExecutable];
  const args: string[] = [];
  for (const arg of rest) {
    const real = isAbsolute(arg) ? await realpath(arg).catch(() => undefined) : undefined;
    if (real === undefined) {
      args.push(arg);
      continue;
    }
    roots.push(await packageRoot(real));
    args.push(CONTAINER_HOST_ROOT + real);
  }
  const unique = [...new Set(roots)].filter((root, _, all) => !all.some((other) => other !== root && root.startsWith(`${other}/`)));
  return {
    mounts: unique.map((root) => `${root}:${CONTAINER_HOST_ROOT}${root}:ro`),
    entrypoint: CONTAINER_HOST_ROOT + realExecutable,
    args,
  };
}

async function realExecutablePath(executable: string): Promise<string> {
  return realpath(executable).catch(() => {
    throw new ProvisionerError(`docker compute: the agent command ${executable} does not exist on this host`);
  });
}

async function packageRoot(file: string): Promise<string> {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (
      await stat(join(dir, 'package.json')).then(
        () => true,
        () => false,
      )
    )
      return dir;
    if (dirname(dir) === dir) return dirname(file);
  }
}

interface RunRequest {
  readonly resource: ResourceSpec;
  readonly agent: PlannedAgent | undefined;
  readonly command: readonly [string, ...string[]] | undefined;
  readonly name: string;
  readonly network: string;
  readonly context: ComputeContext;
}

/**
 * The arguments of `docker run`, image and command included; with `copy`, those of `docker create`
 * for a container the agent executable is copied into before it starts.
 */
async function runArguments(request: RunRequest, copy: boolean): Promise<string[]> {
  const { resource, agent, context } = request;
  const args = [...(copy ? ['create'] : ['run', '--detach']), '--init', '--name', request.name, '--network', request.network];
  // On the host network a container would otherwise take the host's name; the workspace's tells
  // a shell prompt inside it apart from one on the host.
  args.push('--hostname', containerHostname(context));
  for (const [key, value] of Object.entries(labels(context, resource))) args.push('--label', `${key}=${value}`);
  for (const volume of resource.volumes ?? []) args.push('--volume', volumeArgument(volume, resource.name));
  for (const [key, value] of Object.entries({ ...resource.env, ...agent?.env })) args.push('--env', `${key}=${value}`);
  if (agent === undefined || request.command === undefined) return [...args, resource.image ?? ''];
  const inside = copy
    ? { mounts: [], entrypoint: COPIED_AGENT_PATH, args: request.command.slice(1) }
    : await containerAgentCommand(request.command);
  for (const mount of inside.mounts) args.push('--volume', mount);
  args.push('--env', `COVE_AGENT_URL=${context.accessUrl}`);
  // Named without a value, docker copies it from the CLI's environment: the token stays off the command line.
  args.push('--env', 'COVE_AGENT_TOKEN');
  if (agent.directory !== '') {
    // The path is inside the container: there is no host home to expand `~` against.
    if (!agent.directory.startsWith('/'))
      throw new ProvisionerError(
        `docker compute: agent "${agent.name}": dir must be an absolute path inside the container (got "${agent.directory}")`,
      );
    args.push('--workdir', agent.directory);
  }
  args.push('--entrypoint', inside.entrypoint, resource.image ?? '', ...inside.args);
  return args;
}

/** A volume entry with `~` expanded in a host path; relative host paths have no meaning here. */
function volumeArgument(volume: string, resourceName: string): string {
  const source = volume.split(':')[0] ?? '';
  if (source.startsWith('~')) return join(homedir(), source.slice(1)) + volume.slice(source.length);
  if (source.startsWith('.'))
    throw new ProvisionerError(
      `docker compute: resource "${resourceName}": volume "${volume}" must name an absolute host path or a volume name`,
    );
  return volume;
}

/** The volume names (not host paths) among the resource's volumes. */
function namedVolumes(resource: ResourceSpec): string[] {
  return (resource.volumes ?? []).flatMap((volume) => {
    const [source, target] = volume.split(':');
    return source && target && /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(source) ? [source] : [];
  });
}

function singleAgent(resource: ResourceSpec, agents: readonly PlannedAgent[]): PlannedAgent | undefined {
  if (agents.length > 1)
    throw new ProvisionerError(`docker compute: resource "${resource.name}" declares ${agents.length} agents; a container runs one`);
  return agents[0];
}

/** Docker names allow `[a-zA-Z0-9][a-zA-Z0-9_.-]`; workspace ids are uuids and resource names slugs. */
function containerName(context: ComputeContext, resource: ResourceSpec): string {
  return `cove-${context.workspace.id}-${resource.name}`.replace(/[^A-Za-z0-9_.-]/g, '-');
}

/** The workspace name as a host name: one DNS label, at most 63 characters. */
function containerHostname(context: ComputeContext): string {
  const label = context.workspace.name
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
  return label === '' ? 'workspace' : label;
}

function labels(context: ComputeContext, resource: ResourceSpec): Record<string, string> {
  return { [LABEL_WORKSPACE]: context.workspace.id, [LABEL_RESOURCE]: resource.name };
}

/** Whether the recorded container still runs this build's image with this build's agent token. */
async function isCurrent(
  docker: DockerCli,
  container: ContainerRecord,
  image: string,
  agent: PlannedAgent,
  context: ComputeContext,
): Promise<boolean> {
  if (container.image !== image || container.token_sha256 !== tokenHash(agent.auth_token)) return false;
  const result = await docker.call(['inspect', '--format', '{{.State.Running}}', container.id], context, {
    missingIsFine: true,
    quiet: true,
  });
  return result.stdout.trim() === 'true';
}

/** A container of this name from a start whose state was lost: removed when it is this workspace's. */
async function removeLeftover(docker: DockerCli, name: string, context: ComputeContext): Promise<void> {
  const result = await docker.call(
    ['inspect', '--type', 'container', '--format', `{{index .Config.Labels "${LABEL_WORKSPACE}"}}`, name],
    context,
    { missingIsFine: true, quiet: true },
  );
  if (result.code !== 0) return;
  if (result.stdout.trim() !== context.workspace.id) {
    throw new ProvisionerError(
      `docker compute: a container named ${name} exists and Cove did not create it for this workspace; remove or rename it`,
    );
  }
  await docker.removeContainer(name, context);
  log(context, 'warn', `Removed a leftover container ${name} of this workspace`);
}

interface CallOptions {
  /** A "no such container/volume/object" failure is an answer, not an error. */
  readonly missingIsFine?: boolean;
  /** Keeps the command's stderr out of the build log (probes whose failure is expected). */
  readonly quiet?: boolean;
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

interface DockerCli {
  /** Throws the "no Docker engine" error when the CLI is missing or no engine answers. */
  checkEngine(context: ComputeContext): Promise<void>;
  /** Runs a docker command; throws ProvisionerError when it fails (unless the object is missing and that is fine). */
  call(args: readonly string[], context: ComputeContext, options?: CallOptions): Promise<CommandResult>;
  removeContainer(id: string, context: ComputeContext): Promise<void>;
  /** True when it created the volume, false when one of that name exists. */
  createVolumeIfMissing(name: string, labels: Readonly<Record<string, string>>, context: ComputeContext): Promise<boolean>;
  /** `docker run -d`; returns the container id. */
  run(args: readonly string[], agentToken: string, context: ComputeContext): Promise<string>;
  /** `docker create`, `docker cp` of the agent executable into it, `docker start`; returns the container id. */
  runWithCopy(args: readonly string[], executable: string, agentToken: string, context: ComputeContext): Promise<string>;
}

function createDockerCli(baseEnv: NodeJS.ProcessEnv): DockerCli {
  const env = scrubbedEnvironment(baseEnv);
  const cli: DockerCli = {
    async checkEngine(context) {
      const errors: string[] = [];
      const result = await runCommand({
        command: 'docker',
        args: ['version', '--format', '{{.Server.Version}}'],
        env,
        signal: context.signal,
        timeoutMs: ENGINE_CHECK_TIMEOUT_MS,
        onLine: (stream, line) => {
          if (stream === 'stderr' && line.trim() !== '') errors.push(line.trim());
        },
      });
      if (result.error?.code === 'ENOENT') throw noEngine('no "docker" binary on PATH');
      if (result.error) throw noEngine(`docker version: ${result.error.message}`);
      if (result.timedOut) throw noEngine('docker version: no answer within 20 s');
      if (result.code !== 0) throw noEngine(`docker version: ${errors[0] ?? `exit code ${result.code ?? result.signal ?? '?'}`}`);
    },
    async call(args, context, options = {}) {
      const result = await runCommand({
        command: 'docker',
        args,
        env: { ...env, ...options.env },
        signal: context.signal,
        timeoutMs: options.timeoutMs ?? QUICK_TIMEOUT_MS,
        // Pull progress and warnings come on stderr; the build log shows them.
        onLine: (stream, line) => {
          if (stream === 'stderr' && !options.quiet && line.trim() !== '') log(context, 'info', line);
        },
      });
      if (result.error?.code === 'ENOENT') throw noEngine('no "docker" binary on PATH');
      if (result.error)
        throw new ProvisionerError(`docker compute: docker ${args[0] ?? ''}: ${result.error.message}`, { cause: result.error });
      if (result.code === 0) return result;
      if (options.missingIsFine && result.tail.some((line) => /no such (container|object|volume)/i.test(line))) return result;
      const detail = result.timedOut ? 'timed out' : `exit code ${result.code ?? result.signal ?? '?'}`;
      throw new ProvisionerError(
        `docker compute: docker ${args.slice(0, 2).join(' ')} failed (${detail})${result.tail.length > 0 ? `:\n${result.tail.join('\n')}` : ''}`,
      );
    },
    async removeContainer(id, context) {
      await cli.call(['rm', '--force', '--volumes', id], context, { missingIsFine: true });
    },
    async createVolumeIfMissing(name, volumeLabels, context) {
      const existing = await cli.call(['volume', 'inspect', '--format', '{{.Name}}', name], context, { missingIsFine: true, quiet: true });
      if (existing.code === 0) return false;
      const labelArgs = Object.entries(volumeLabels).flatMap(([key, value]) => ['--label', `${key}=${value}`]);
      await cli.call(['volume', 'create', ...labelArgs, name], context);
      log(context, 'info', `Created volume ${name}`);
      return true;
    },
    async run(args, agentToken, context) {
      const result = await cli.call(args, context, { env: { COVE_AGENT_TOKEN: agentToken }, timeoutMs: COMMAND_TIMEOUT_MS });
      const id = result.stdout.trim().split('\n').pop() ?? '';
      if (!/^[0-9a-f]{12,64}$/.test(id)) throw new ProvisionerError(`docker compute: docker run printed no container id (got "${id}")`);
      return id;
    },
    async runWithCopy(args, executable, agentToken, context) {
      const id = await cli.run(args, agentToken, context);
      try {
        await cli.call(['cp', executable, `${id}:${COPIED_AGENT_PATH}`], context, { timeoutMs: COMMAND_TIMEOUT_MS });
        await cli.call(['start', id], context);
      } catch (error) {
        await cli.removeContainer(id, context).catch(() => undefined);
        throw error;
      }
      return id;
    },
  };
  return cli;
}

function noEngine(detail: string): ProvisionerError {
  return new ProvisionerError(`docker compute: no Docker engine is reachable (${detail}). Install Docker or set DOCKER_HOST.`);
}

function stateJson(state: DockerState): JsonValue {
  return { container: state.container === null ? null : { ...state.container }, volumes: [...state.volumes] };
}

function asDockerState(value: JsonValue | undefined): DockerState | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Readonly<Record<string, JsonValue>>;
  const volumes = record['volumes'];
  if (!Array.isArray(volumes) || !volumes.every((volume) => typeof volume === 'string')) return undefined;
  return { container: asContainer(record['container']), volumes: volumes as string[] };
}

function asContainer(value: JsonValue | undefined): ContainerRecord | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Readonly<Record<string, JsonValue>>;
  const { id, name, image, token_sha256: token } = record;
  return typeof id === 'string' && typeof name === 'string' && typeof image === 'string' && typeof token === 'string'
    ? { id, name, image, token_sha256: token }
    : null;
}

function log(context: ComputeContext, level: 'info' | 'warn', output: string): void {
  context.log({ level, stage: stageOf(context), output });
}
