import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { cancelableDelay, ProvisionerError, throwIfCanceled, type PlannedAgent } from '../provisioner.js';
import { ComputePartialFailure, type Compute, type ComputeContext, type JsonValue } from './compute.js';
import { directoryPath } from './expand-resources.js';

/** Options of the process compute. */
export interface ProcessComputeOptions {
  /**
   * The command that starts a workspace agent: the executable that runs this provisioner, that is
   * `[<single executable>, 'agent']`, or `[node, <bin/cove>, 'agent']` in a checkout. Without it a
   * start fails: there is nothing to run.
   */
  readonly agentCommand?: readonly string[];
  /** The environment agents inherit, minus Cove's server secrets; defaults to this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** How long a stop waits after SIGTERM before it sends SIGKILL. Defaults to 10 s. */
  readonly stopTimeoutMs?: number;
}

/** What the state records for one agent process. */
interface AgentProcess {
  readonly name: string;
  readonly pid: number;
  /** See processIdentity; null where the platform gives none. */
  readonly identity: string | null;
  /** A hash of the agent's token: enough to tell a retry of the same build from a new build. */
  readonly token_sha256: string;
  readonly dir: string;
  readonly log: string;
}

/** What the state records for a process resource: the agents it left running. */
interface ProcessState {
  readonly agents: readonly AgentProcess[];
}

const DEFAULT_STOP_TIMEOUT_MS = 10_000;
/** After SIGKILL the kernel ends a process at once; this only bounds a wait on a stuck one. */
const KILL_WAIT_MS = 5_000;
const POLL_MS = 50;

/**
 * Variables of the provisioner's environment that must never reach a workspace: the server's
 * credentials. A workspace runs code its owner controls, as the provisioner's user.
 */
const SECRET_NAMES: readonly RegExp[] = [
  /^COVE_SESSION_TOKEN$/,
  /^COVE_PG_CONNECTION_URL$/,
  /^COVE_.*_SECRET$/,
  /^COVE_.*_PASSWORD$/,
  /^COVE_.*_TOKEN$/,
  /^COVE_.*_KEY$/,
];

/**
 * The `process` compute: each agent of the resource runs as a detached child process of the
 * provisioner host (a process group of its own, so that a stop ends whatever the agent started),
 * in the agent's `dir`, with its output appended to `<dir>/.cove-agent-<name>.log`. The state
 * records each pid with the process's start identity, so a restarted provisioner can still stop
 * it and never signals a recycled pid.
 */
export function createProcessCompute(options: ProcessComputeOptions = {}): Compute {
  const stopTimeoutMs = options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
  const baseEnv = options.env ?? process.env;
  return {
    type: 'process',
    async preflight(context) {
      if (context.transition === 'start') requireAgentCommand(options.agentCommand, 'process');
    },
    async start({ resource, agents, previous, context }) {
      const command = requireAgentCommand(options.agentCommand, 'process');
      const running = [...(asProcessState(previous)?.agents ?? [])];
      try {
        for (const entry of [...running]) {
          throwIfCanceled(context.signal);
          const wanted = agents.find((agent) => agent.name === entry.name);
          if (wanted && tokenHash(wanted.auth_token) === entry.token_sha256 && (await isSameProcess(entry))) continue;
          await stopAgentProcess(entry, stopTimeoutMs, context);
          running.splice(running.indexOf(entry), 1);
        }
        for (const agent of agents) {
          throwIfCanceled(context.signal);
          if (running.some((entry) => entry.name === agent.name)) {
            log(context, 'info', `Agent "${agent.name}" of resource "${resource.name}" is already running`);
            continue;
          }
          running.push(await spawnAgent(command, agent, scrubbedEnvironment(baseEnv), context));
        }
      } catch (error) {
        throw new ComputePartialFailure(error, stateJson(running));
      }
      return stateJson(running);
    },
    async stop({ previous, context }) {
      const running = [...(asProcessState(previous)?.agents ?? [])];
      for (const entry of [...running]) {
        throwIfCanceled(context.signal);
        await stopAgentProcess(entry, stopTimeoutMs, context);
        running.splice(running.indexOf(entry), 1);
      }
      return stateJson(running);
    },
    async delete({ previous, context }) {
      // What the agents wrote stays: directories are the `directory` resource's to remove.
      for (const entry of asProcessState(previous)?.agents ?? []) {
        throwIfCanceled(context.signal);
        await stopAgentProcess(entry, stopTimeoutMs, context);
      }
    },
  };
}

/**
 * The provisioner's environment without Cove's server secrets (`COVE_SESSION_TOKEN`,
 * `COVE_PG_CONNECTION_URL`, and every `COVE_*_SECRET`, `COVE_*_PASSWORD`, `COVE_*_TOKEN`,
 * `COVE_*_KEY`), for anything a template runs.
 */
export function scrubbedEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !SECRET_NAMES.some((pattern) => pattern.test(name))) out[name] = value;
  }
  return out;
}

/** The configured agent command, or the error that says none is. */
export function requireAgentCommand(command: readonly string[] | undefined, compute: string): readonly [string, ...string[]] {
  const [executable, ...args] = command ?? [];
  if (executable === undefined || executable === '') {
    throw new ProvisionerError(
      `${compute} compute: no agent command is configured on this provisioner, so it cannot start a workspace agent (the daemon sets it to "cove agent")`,
    );
  }
  return [executable, ...args];
}

/** The hash the state keeps instead of an agent token. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

async function spawnAgent(
  command: readonly [string, ...string[]],
  agent: PlannedAgent,
  env: Record<string, string>,
  context: ComputeContext,
): Promise<AgentProcess> {
  const dir = agentDirectory(agent);
  await mkdir(dir, { recursive: true });
  const logPath = join(dir, `.cove-agent-${agent.name}.log`);
  const logFile = await open(logPath, 'a', 0o600);
  try {
    const [executable, ...args] = command;
    const child = spawn(executable, args, {
      cwd: dir,
      env: { ...env, ...agent.env, COVE_AGENT_URL: context.accessUrl, COVE_AGENT_TOKEN: agent.auth_token },
      // A process group of its own: the agent outlives this provisioner, and a stop reaches its children.
      detached: true,
      stdio: ['ignore', logFile.fd, logFile.fd],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('error', (error) =>
        reject(
          new ProvisionerError(`process compute: cannot start agent "${agent.name}" with ${executable}: ${error.message}`, {
            cause: error,
          }),
        ),
      );
      child.once('spawn', () =>
        child.pid === undefined ? reject(new ProvisionerError(`process compute: agent "${agent.name}" has no pid`)) : resolve(child.pid),
      );
    });
    child.unref();
    const identity = await processIdentity(pid);
    log(context, 'info', `Started agent "${agent.name}" (pid ${pid}) in ${dir}; its output goes to ${logPath}`);
    return { name: agent.name, pid, identity, token_sha256: tokenHash(agent.auth_token), dir, log: logPath };
  } finally {
    await logFile.close();
  }
}

/** The agent's `dir` (`~` expanded), or the provisioner user's home when it names none. */
function agentDirectory(agent: PlannedAgent): string {
  const dir = agent.directory === '' ? homedir() : directoryPath(agent.directory);
  if (!isAbsolute(dir))
    throw new ProvisionerError(
      `process compute: agent "${agent.name}": dir must be an absolute path or start with ~/ (got "${agent.directory}")`,
    );
  return dir;
}

/**
 * Ends an agent's process group: SIGTERM, then SIGKILL when it is still there after the timeout.
 * A process that is already gone is fine. A pid that now belongs to another process (its start
 * identity differs) means ours is long gone, and its group with it: a pid is never handed out
 * while a process group of that number exists.
 */
export async function stopAgentProcess(
  entry: { readonly name: string; readonly pid: number; readonly identity: string | null },
  timeoutMs: number,
  context: ComputeContext,
): Promise<void> {
  const { pid } = entry;
  if (await isRecycled(entry)) {
    log(context, 'info', `Agent "${entry.name}" (pid ${pid}) is no longer running`);
    return;
  }
  if (!signalGroup(pid, 'SIGTERM')) {
    log(context, 'info', `Agent "${entry.name}" (pid ${pid}) is no longer running`);
    return;
  }
  if (await waitForGroupExit(pid, timeoutMs, context.signal)) {
    log(context, 'info', `Stopped agent "${entry.name}" (pid ${pid})`);
    return;
  }
  log(
    context,
    'warn',
    `Agent "${entry.name}" (pid ${pid}) did not stop within ${Math.round(timeoutMs / 1000)} s of SIGTERM; sending SIGKILL`,
  );
  signalGroup(pid, 'SIGKILL');
  if (!(await waitForGroupExit(pid, KILL_WAIT_MS, context.signal))) {
    throw new ProvisionerError(`process compute: agent "${entry.name}" (process group ${pid}) is still running after SIGKILL`);
  }
  log(context, 'info', `Killed agent "${entry.name}" (pid ${pid})`);
}

/**
 * Sends a signal to the process group `pid` leads; false when there is no such group. Refuses
 * pids that would address more than one group (0, 1, negative), whatever a state says.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  if (!Number.isInteger(pid) || pid <= 1) throw new ProvisionerError(`refusing to signal process group ${pid}`);
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    // EPERM: the group exists but holds a process we may not signal; the caller waits it out.
    if ((error as NodeJS.ErrnoException).code === 'EPERM') return true;
    throw error;
  }
}

/** Polls until the group is gone (true) or the time is up (false); throws when canceled. */
async function waitForGroupExit(pid: number, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (signalGroup(pid, 0)) {
    if (Date.now() >= deadline) return false;
    await cancelableDelay(POLL_MS, signal);
  }
  return true;
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `pid` is still the process the state recorded (same start identity) and it runs. */
async function isSameProcess(entry: { readonly pid: number; readonly identity: string | null }): Promise<boolean> {
  if (!isAlive(entry.pid) || (await isRecycled(entry))) return false;
  return (await procStat(entry.pid))?.state !== 'Z';
}

/** Whether `pid` now names another process than the one the state recorded. */
async function isRecycled(entry: { readonly pid: number; readonly identity: string | null }): Promise<boolean> {
  if (entry.identity === null || !isAlive(entry.pid)) return false;
  const current = await processIdentity(entry.pid);
  return current !== null && current !== entry.identity;
}

/**
 * What tells this process apart from a later one that reuses its pid: on Linux the boot id and
 * the start time in clock ticks since boot (`/proc/<pid>/stat` field 22); null elsewhere, where
 * only the pid is checked.
 */
export async function processIdentity(pid: number): Promise<string | null> {
  const stat = await procStat(pid);
  if (stat === undefined) return null;
  const bootId = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => '');
  return `linux:${bootId.trim()}:${stat.startTime}`;
}

async function procStat(pid: number): Promise<{ readonly state: string; readonly startTime: string } | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses; fields after it are plain.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[19];
  return state === undefined || startTime === undefined ? undefined : { state, startTime };
}

function stateJson(agents: readonly AgentProcess[]): JsonValue {
  return { agents: agents.map((agent) => ({ ...agent })) };
}

function asProcessState(value: JsonValue | undefined): ProcessState | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const agents = (value as Readonly<Record<string, JsonValue>>)['agents'];
  if (!Array.isArray(agents)) return undefined;
  return { agents: agents.filter(isAgentProcess) };
}

function isAgentProcess(value: JsonValue): value is AgentProcess & JsonValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Readonly<Record<string, JsonValue>>;
  return (
    typeof record['name'] === 'string' &&
    typeof record['pid'] === 'number' &&
    Number.isInteger(record['pid']) &&
    record['pid'] > 1 &&
    (typeof record['identity'] === 'string' || record['identity'] === null) &&
    typeof record['token_sha256'] === 'string'
  );
}

function log(context: ComputeContext, level: 'info' | 'warn', output: string): void {
  context.log({ level, stage: stageOf(context), output });
}

/** The stage a compute's log lines go under, the same names the native provisioner uses. */
export function stageOf(context: ComputeContext): string {
  return context.transition === 'start'
    ? 'Starting workspace'
    : context.transition === 'stop'
      ? 'Stopping workspace'
      : 'Destroying workspace';
}
