import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ProvisionerCanceledError, ProvisionerError, throwIfCanceled, type PlannedAgent } from '../provisioner.js';
import { ComputePartialFailure, type Compute, type ComputeContext, type JsonValue } from './compute.js';
import type { ResourceSpec } from './expand-resources.js';
import { scrubbedEnvironment, signalGroup, stageOf } from './process-compute.js';
import { HOOK_COMMANDS } from './template-schema.js';

/** Options of the hook compute. */
export interface HookComputeOptions {
  /** The environment hooks inherit, minus Cove's server secrets; defaults to this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** How long one hook may run before it is killed and the build fails. Defaults to 10 minutes. */
  readonly timeoutMs?: number;
}

type HookName = (typeof HOOK_COMMANDS)[number];
type HookPaths = Partial<Record<HookName, string>>;

/** What the state records for a hook resource. */
interface HookState {
  /** Whether the `create` hook has run (or there was none) for this workspace. */
  readonly created: boolean;
  /** The hook paths and `env` as of the last start, for a stop or delete of a dropped resource. */
  readonly hooks: HookPaths;
  readonly env: Readonly<Record<string, string>>;
  /** What the hooks last reported with a `COVE_STATE=<json>` line; null when nothing. */
  readonly hook_state: JsonValue;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** The prefix of a hook's stdout line that records state for later hooks. */
const STATE_PREFIX = 'COVE_STATE=';
const TAIL_LINES = 10;

/**
 * The `hook` compute: for compute Cove does not know (VMs, Kubernetes, remote hosts), the template's
 * own scripts do the work. `create` runs on the first start, `start` on every start, `stop` on a
 * stop, `delete` on a delete; each runs on the provisioner host, in the template directory, with
 * the environment that `compute.ts` documents, plus:
 *
 * - `COVE_HOOK`: the hook's name; `COVE_WORKSPACE_OWNER_ID`;
 * - `COVE_AGENT_NAME`, and `COVE_AGENT_TOKEN_<NAME>` for every agent (name upper-cased, `-` as
 *   `_`); `COVE_AGENT_TOKEN` is the first agent's. Stop and delete get empty tokens;
 * - `COVE_HOOK_STATE`: state the hooks recorded earlier, as JSON, or empty. A hook records state by
 *   printing a line `COVE_STATE=<json>` on stdout (the last one wins; `COVE_STATE=null` clears
 *   it); the build state keeps it, so later hooks of the same workspace receive it, even after a
 *   restart. Such lines are not copied to the build log, since they may hold machine secrets.
 *
 * Stdout lines become info logs, stderr lines warnings. A non-zero exit fails the build with the
 * hook's name, exit code and last lines; a hook that outlives its timeout is killed (its whole
 * process group), as is one whose job is canceled.
 */
export function createHookCompute(options: HookComputeOptions = {}): Compute {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const baseEnv = options.env ?? process.env;
  const runHook = (
    hook: HookName,
    path: string,
    state: HookState,
    agents: readonly PlannedAgent[],
    context: ComputeContext,
  ): Promise<JsonValue> => runHookScript({ hook, path, state, agents, context, timeoutMs, baseEnv });
  return {
    type: 'hook',
    async start({ resource, agents, previous, context }) {
      const before = asHookState(previous);
      let state: HookState = {
        created: before?.created ?? false,
        hooks: hooksOf(resource),
        env: { ...resource.env },
        hook_state: before?.hook_state ?? null,
      };
      try {
        if (!state.created) {
          if (state.hooks.create !== undefined) {
            state = { ...state, hook_state: await runHook('create', state.hooks.create, state, agents, context) };
          }
          state = { ...state, created: true };
        }
        if (state.hooks.start !== undefined)
          state = { ...state, hook_state: await runHook('start', state.hooks.start, state, agents, context) };
      } catch (error) {
        throw new ComputePartialFailure(error, stateJson(state));
      }
      return stateJson(state);
    },
    async stop({ resource, previous, context }) {
      const before = asHookState(previous) ?? { created: true, hooks: {}, env: {}, hook_state: null };
      const state = resource ? { ...before, hooks: hooksOf(resource), env: { ...resource.env } } : before;
      if (state.hooks.stop === undefined) return stateJson(state);
      return stateJson({ ...state, hook_state: await runHook('stop', state.hooks.stop, state, [], context) });
    },
    async delete({ previous, context }) {
      // Also after a create that failed partway: delete hooks must cope with half-made things anyway.
      const state = asHookState(previous);
      if (state?.hooks.delete === undefined) return;
      await runHook('delete', state.hooks.delete, state, [], context);
    },
  };
}

/**
 * The shell script hooks receive as `COVE_AGENT_INIT`: it runs `cove agent` where a `cove` is on
 * the machine's PATH, and otherwise downloads the agent for the machine's OS and architecture from
 * `<COVE_AGENT_URL>/bin/cove-<os>-<arch>` and runs that. `COVE_AGENT_URL` and `COVE_AGENT_TOKEN`
 * must be in its environment when it runs; the access URL of this build is the fallback for the URL.
 */
export function agentInitScript(accessUrl: string, agent: PlannedAgent | undefined): string {
  const os = agent?.operating_system ?? 'linux';
  const arch = agent?.architecture ?? 'amd64';
  return [
    '#!/bin/sh',
    '# Starts the Cove workspace agent; COVE_AGENT_TOKEN must be set.',
    'set -eu',
    `: "\${COVE_AGENT_URL:=${accessUrl.replace(/["$`\\]/g, '\\$&')}}"`,
    'export COVE_AGENT_URL',
    'if command -v cove >/dev/null 2>&1; then exec cove agent; fi',
    'dir="${TMPDIR:-/tmp}/cove-agent-$(id -u)"',
    'mkdir -p "$dir"',
    `url="\${COVE_AGENT_URL%/}/bin/cove-${os}-${arch}"`,
    'if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$dir/cove" "$url"',
    'elif command -v wget >/dev/null 2>&1; then wget -q -O "$dir/cove" "$url"',
    'else echo "cove agent: need curl or wget to download $url" >&2; exit 1; fi',
    'chmod +x "$dir/cove"',
    'exec "$dir/cove" agent',
    '',
  ].join('\n');
}

interface HookRun {
  readonly hook: HookName;
  readonly path: string;
  readonly state: HookState;
  readonly agents: readonly PlannedAgent[];
  readonly context: ComputeContext;
  readonly timeoutMs: number;
  readonly baseEnv: NodeJS.ProcessEnv;
}

/** Runs one hook; returns the hook state after it (what its `COVE_STATE=` lines recorded). */
async function runHookScript(run: HookRun): Promise<JsonValue> {
  const { hook, path, context } = run;
  throwIfCanceled(context.signal);
  const script = insideTemplate(context.templateDirectory, path);
  if (script === undefined) throw new ProvisionerError(`hook compute: the ${hook} hook "${path}" is not a path inside the template`);
  const executable = await isExecutable(script);
  if (executable === undefined) throw new ProvisionerError(`hook compute: the ${hook} hook "${path}" is not in this template version`);
  const stage = stageOf(context);
  let hookState = run.state.hook_state;
  context.log({ level: 'info', stage, output: `Running the ${hook} hook (${path})` });
  const result = await runCommand({
    command: executable ? script : '/bin/sh',
    args: executable ? [] : [script],
    cwd: context.templateDirectory,
    env: hookEnvironment(run),
    signal: context.signal,
    timeoutMs: run.timeoutMs,
    isPrivate: (stream, line) => stream === 'stdout' && line.startsWith(STATE_PREFIX),
    onLine: (stream, line) => {
      if (stream === 'stdout' && line.startsWith(STATE_PREFIX)) {
        hookState = parsedHookState(line.slice(STATE_PREFIX.length), hook, context, hookState);
        return;
      }
      context.log({ level: stream === 'stdout' ? 'info' : 'warn', stage, output: line });
    },
  });
  if (result.error)
    throw new ProvisionerError(`hook compute: cannot run the ${hook} hook (${path}): ${result.error.message}`, { cause: result.error });
  if (result.timedOut) {
    throw new ProvisionerError(
      `hook compute: the ${hook} hook (${path}) did not finish within ${formatDuration(run.timeoutMs)} and was killed${tailText(result.tail)}`,
    );
  }
  if (result.code !== 0) {
    const how = result.code === null ? `was killed by ${result.signal ?? 'a signal'}` : `exited with code ${result.code}`;
    throw new ProvisionerError(`hook compute: the ${hook} hook (${path}) ${how}${tailText(result.tail)}`);
  }
  return hookState;
}

function hookEnvironment(run: HookRun): Record<string, string> {
  const { context, agents } = run;
  const first = agents[0];
  const tokens = Object.fromEntries(
    agents.map((agent) => [`COVE_AGENT_TOKEN_${agent.name.toUpperCase().replaceAll('-', '_')}`, agent.auth_token]),
  );
  return {
    ...scrubbedEnvironment(run.baseEnv),
    ...run.state.env,
    ...tokens,
    COVE_AGENT_URL: context.accessUrl,
    COVE_AGENT_TOKEN: first?.auth_token ?? '',
    COVE_AGENT_NAME: first?.name ?? '',
    COVE_AGENT_INIT: agentInitScript(context.accessUrl, first),
    COVE_WORKSPACE_ID: context.workspace.id,
    COVE_WORKSPACE_NAME: context.workspace.name,
    COVE_WORKSPACE_OWNER: context.workspace.owner,
    COVE_WORKSPACE_OWNER_ID: context.workspace.owner_id,
    COVE_TRANSITION: context.transition,
    COVE_HOOK: run.hook,
    COVE_HOOK_STATE: run.state.hook_state === null ? '' : JSON.stringify(run.state.hook_state),
  };
}

function parsedHookState(text: string, hook: HookName, context: ComputeContext, current: JsonValue): JsonValue {
  try {
    const value = JSON.parse(text) as JsonValue;
    context.log({ level: 'info', stage: stageOf(context), output: `The ${hook} hook recorded state (${text.length} bytes)` });
    return value;
  } catch {
    context.log({
      level: 'warn',
      stage: stageOf(context),
      output: `Ignoring a ${STATE_PREFIX} line of the ${hook} hook: its value is not JSON`,
    });
    return current;
  }
}

/** The hook's absolute path when it stays inside the template directory. */
function insideTemplate(directory: string, path: string): string | undefined {
  if (isAbsolute(path)) return undefined;
  const full = resolve(directory, path);
  const rel = relative(resolve(directory), full);
  return rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : full;
}

/** true: run it directly; false: it exists but lost its mode (run it with sh); undefined: missing. */
async function isExecutable(path: string): Promise<boolean | undefined> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return access(path, constants.R_OK).then(
      () => false,
      () => undefined,
    );
  }
}

function hooksOf(resource: ResourceSpec): HookPaths {
  const hooks: HookPaths = {};
  for (const name of HOOK_COMMANDS) {
    const path = resource[name];
    if (path !== undefined) hooks[name] = path;
  }
  return hooks;
}

function stateJson(state: HookState): JsonValue {
  return { created: state.created, hooks: { ...state.hooks }, env: { ...state.env }, hook_state: state.hook_state };
}

function asHookState(value: JsonValue | undefined): HookState | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Readonly<Record<string, JsonValue>>;
  const hooks = stringRecord(record['hooks']);
  const env = stringRecord(record['env']);
  if (typeof record['created'] !== 'boolean' || hooks === undefined || env === undefined) return undefined;
  return { created: record['created'], hooks: hooks as HookPaths, env, hook_state: record['hook_state'] ?? null };
}

function stringRecord(value: JsonValue | undefined): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Readonly<Record<string, JsonValue>>);
  return entries.every(([, item]) => typeof item === 'string') ? Object.fromEntries(entries as [string, string][]) : undefined;
}

function tailText(tail: readonly string[]): string {
  return tail.length === 0 ? '' : `; its last output:\n${tail.join('\n')}`;
}

function formatDuration(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

/** What runCommand needs. */
export interface RunCommandOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string>>;
  /** Kills the command's process group; runCommand then rejects with ProvisionerCanceledError. */
  readonly signal: AbortSignal;
  /** Kills the command's process group after this long; the result says `timedOut`. */
  readonly timeoutMs: number;
  /** Each complete line of output, without its line break. */
  readonly onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  /** Lines to keep out of the result's `tail` (which error messages quote). */
  readonly isPrivate?: (stream: 'stdout' | 'stderr', line: string) => boolean;
}

/** How a command ended. */
export interface CommandResult {
  /** The exit code; null when a signal ended it or it never started. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  /** The last non-blank lines of output, stdout and stderr together, for error messages. */
  readonly tail: readonly string[];
  readonly timedOut: boolean;
  /** Set when the command could not be started at all (ENOENT for a missing binary). */
  readonly error?: NodeJS.ErrnoException;
}

/** After SIGTERM, how long a command has before its group gets SIGKILL. */
const KILL_GRACE_MS = 5_000;
/** After the command exits, how long to wait for output pipes that a background child keeps open. */
const DRAIN_MS = 1_000;

/**
 * Runs a command in a process group of its own, line by line into `onLine`, and resolves when it
 * ends. A timeout or a canceled signal ends the whole group (SIGTERM, then SIGKILL), so nothing
 * the command started is left behind; cancellation rejects with ProvisionerCanceledError.
 */
export function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  return new Promise((resolvePromise, reject) => {
    if (options.signal.aborted) {
      reject(new ProvisionerCanceledError());
      return;
    }
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tail: string[] = [];
    const stdout: string[] = [];
    let timedOut = false;
    let canceled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const onLine = (stream: 'stdout' | 'stderr', line: string): void => {
      if (line.trim() !== '' && !options.isPrivate?.(stream, line)) {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
      }
      options.onLine?.(stream, line);
    };
    const readers = [
      lineReader(
        child.stdout,
        (line) => onLine('stdout', line),
        (chunk) => stdout.push(chunk),
      ),
      lineReader(child.stderr, (line) => onLine('stderr', line)),
    ];
    const end = (): void => {
      if (child.pid === undefined) return;
      try {
        signalGroup(child.pid, 'SIGTERM');
      } catch {
        // The group is gone already.
      }
      killTimer ??= setTimeout(() => {
        if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      }, KILL_GRACE_MS);
    };
    const onAbort = (): void => {
      canceled = true;
      end();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, options.timeoutMs);
    options.signal.addEventListener('abort', onAbort, { once: true });
    let done = false;
    const finish = (result: Omit<CommandResult, 'stdout' | 'tail' | 'timedOut'>): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (killTimer !== undefined) clearTimeout(killTimer);
      options.signal.removeEventListener('abort', onAbort);
      for (const reader of readers) reader.flush();
      if (canceled) reject(new ProvisionerCanceledError());
      else resolvePromise({ ...result, stdout: stdout.join(''), tail: [...tail], timedOut });
    };
    child.once('error', (error: NodeJS.ErrnoException) => finish({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => {
      // A background process the command started may hold the pipes open: read what is there, then stop waiting.
      const drained = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, DRAIN_MS);
      child.once('close', () => {
        clearTimeout(drained);
        finish({ code, signal });
      });
    });
  });
}

/** Splits a stream into lines (LF or CRLF); `flush` hands over a last line without a break. */
function lineReader(stream: NodeJS.ReadableStream, onLine: (line: string) => void, onChunk?: (chunk: string) => void): { flush(): void } {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    onChunk?.(chunk);
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line.replace(/\r$/, ''));
  });
  return {
    flush() {
      if (pending !== '') onLine(pending.replace(/\r$/, ''));
      pending = '';
    },
  };
}
