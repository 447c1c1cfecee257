import { mkdirSync } from 'node:fs';
import { StateChanges } from '../lib/state-changes.js';
import { VERSION } from '../lib/version.js';
import type { AgentManifest, AgentMessage, DaemonToAgentMessage, LifecycleState, ManifestScript } from '../sdk/wire/agent-protocol.js';
import { AgentConnection } from './agent-connection.js';
import type { AgentLogger } from './agent-logger.js';
import { watchAppHealth } from './app-health.js';
import { Lifecycle } from './lifecycle.js';
import { LogShipper } from './log-shipper.js';
import { MetadataCollector } from './metadata-collector.js';
import { nextCron, parseCron, type CronSpec } from './cron.js';
import { runScript, type ScriptCompleted, type ScriptStage } from './script-runner.js';
import { expandPath, sessionEnvironment } from './session-environment.js';
import { AgentRequests } from './agent-requests.js';
import { ReconnectingPtys } from './pty/reconnecting-ptys.js';
import { RelayStreams } from './relay/relay-streams.js';
import { TrafficMeter } from './relay/traffic-meter.js';
import { LazySshServer } from './ssh/lazy-ssh-server.js';

/** Session counts and traffic, for `stats`; tests may give their own. */
export interface StatsSource {
  /** Counters since the previous call, and current session gauges. */
  collect(): Omit<Extract<AgentMessage, { type: 'stats' }>, 'type'>;
}

/** What the agent needs to run. */
export interface AgentOptions {
  /** The deployment's base URL. */
  readonly url: string;
  /** The agent token. */
  readonly token: string;
  readonly logger: AgentLogger;
  /** The agent's environment, inherited by scripts and sessions (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Called when the daemon refuses the token (401), as it does once a newer build replaced this
   * agent's: an agent that got its token from its instance identity can exchange it again.
   */
  readonly onUnauthorized?: () => void;
  /** The program sessions' git runs for credentials (see SessionEnvironmentInput.gitAskpass). */
  readonly gitAskpass?: string;
  /** Where relative script `log_path`s go (default: the agent directory). */
  readonly logDir?: string;
  readonly stats?: StatsSource;
  /** Knobs for tests; the defaults are the production values. */
  readonly timing?: {
    readonly reconnect?: { readonly initialMs?: number; readonly maxMs?: number };
    readonly heartbeatMs?: number;
    readonly logFlushMs?: number;
    readonly killGraceMs?: number;
    readonly pipeGraceMs?: number;
    /** How long stop() waits for the final reports to be sent (5000 ms). */
    readonly shutdownGraceMs?: number;
    /** How long a terminal nobody is attached to lives (5 minutes). */
    readonly ptyIdleTimeoutMs?: number;
    /** How often stats are reported, instead of the manifest's interval. */
    readonly statsIntervalMs?: number;
  };
}

/** A running agent. */
export interface AgentHandle {
  readonly lifecycle: LifecycleState;
  /** Resolves once the lifecycle is `state` or past it. */
  waitForLifecycle(state: LifecycleState): Promise<void>;
  /**
   * Reports `shutting_down`, runs the `run_on_stop` scripts, reports `off` (or `shutdown_timeout` /
   * `shutdown_error`), waits up to 5 s for the reports and logs to go out, then disconnects.
   * Safe to call more than once.
   */
  stop(): Promise<void>;
}

/**
 * Starts a workspace agent: connects to the daemon, and on the first manifest reports its startup
 * facts, runs the start scripts, reports the outcome, and starts stats and app health checks.
 */
export function startAgent(options: AgentOptions): AgentHandle {
  return new Agent(options);
}

const LIFECYCLE_RANK: readonly LifecycleState[][] = [
  ['created'],
  ['starting'],
  ['start_timeout', 'start_error', 'ready'],
  ['shutting_down'],
  ['shutdown_timeout', 'shutdown_error', 'off'],
];

function rank(state: LifecycleState): number {
  return LIFECYCLE_RANK.findIndex((states) => states.includes(state));
}

interface Workspace {
  readonly manifest: AgentManifest;
  readonly directory: string;
  readonly env: Readonly<Record<string, string>>;
  readonly ptys: ReconnectingPtys;
  readonly ssh: LazySshServer;
  readonly streams: RelayStreams;
  readonly requests: AgentRequests;
}

class Agent implements AgentHandle {
  readonly #options: AgentOptions;
  readonly #connection: AgentConnection;
  readonly #logs: LogShipper;
  readonly #lifecycle: Lifecycle;
  readonly #changes = new StateChanges();
  readonly #stopping = new AbortController();
  #workspace: Workspace | undefined;
  #starting: Promise<void> | undefined;
  #stopped: Promise<void> | undefined;
  readonly #cleanups: (() => void)[] = [];
  readonly #meter = new TrafficMeter();

  constructor(options: AgentOptions) {
    this.#options = options;
    const timing = options.timing ?? {};
    this.#connection = new AgentConnection({
      url: options.url,
      token: options.token,
      logger: options.logger,
      onMessage: (message) => this.#receive(message),
      ...(options.onUnauthorized ? { onUnauthorized: options.onUnauthorized } : {}),
      ...(timing.reconnect ? { reconnect: timing.reconnect } : {}),
      ...(timing.heartbeatMs ? { heartbeatMs: timing.heartbeatMs } : {}),
    });
    this.#logs = new LogShipper({
      url: options.url,
      token: options.token,
      logger: options.logger,
      ...(timing.logFlushMs ? { flushMs: timing.logFlushMs } : {}),
    });
    this.#lifecycle = new Lifecycle((message) => this.#send(message));
    this.#lifecycle.announce();
  }

  get lifecycle(): LifecycleState {
    return this.#lifecycle.state;
  }

  waitForLifecycle(state: LifecycleState): Promise<void> {
    return this.#changes.until(() => rank(this.#lifecycle.state) >= rank(state));
  }

  stop(): Promise<void> {
    this.#stopped ??= this.#shutdown();
    return this.#stopped;
  }

  #send(message: AgentMessage): void {
    this.#connection.send(message);
    if (message.type === 'lifecycle') this.#changes.notify();
  }

  #receive(message: DaemonToAgentMessage): void {
    if (this.#stopping.signal.aborted) return;
    switch (message.type) {
      case 'manifest':
        // Later manifests (after a reconnect) describe the same build; the first one drives start-up.
        if (this.#workspace !== undefined) return;
        this.#workspace = this.#prepare(message.manifest);
        this.#starting = this.#start(this.#workspace);
        return;
      case 'open_stream':
        this.#workspace?.streams.open(message.stream_id, message.target);
        return;
      case 'request': {
        const requests = this.#workspace?.requests;
        if (requests) void requests.answer(message.request_id, message.method, message.params).then((response) => this.#send(response));
        return;
      }
      case 'error':
        return;
    }
  }

  #prepare(manifest: AgentManifest): Workspace {
    const env = sessionEnvironment({
      processEnv: this.#options.env ?? process.env,
      manifest,
      agentUrl: this.#options.url,
      agentToken: this.#options.token,
      gitAskpass: this.#options.gitAskpass,
    });
    const directory = expandPath(manifest.directory || '~', env) || process.cwd();
    try {
      mkdirSync(directory, { recursive: true });
    } catch (error) {
      this.#options.logger.error({ err: error, directory }, 'could not create the agent directory');
    }
    for (const script of manifest.scripts) this.#logs.addSource({ id: script.log_source_id, display_name: script.display_name, icon: '' });
    const { logger, url, token } = this.#options;
    const ptys = new ReconnectingPtys({
      directory,
      env,
      logger,
      ...(this.#options.timing?.ptyIdleTimeoutMs ? { idleTimeoutMs: this.#options.timing.ptyIdleTimeoutMs } : {}),
    });
    const ssh = new LazySshServer({ directory, env, logger });
    const streams = new RelayStreams({
      url,
      token,
      logger,
      ptys,
      ssh,
      meter: this.#meter,
      reportExit: (streamId, exitStatus) => this.#send({ type: 'stream_exit', stream_id: streamId, exit_code: exitStatus }),
    });
    this.#logs.addSource({ id: DEVCONTAINER_LOG_SOURCE.id, display_name: DEVCONTAINER_LOG_SOURCE.display_name, icon: '' });
    const requests = new AgentRequests({ onDevcontainerLog: (line) => this.#logs.write(DEVCONTAINER_LOG_SOURCE.id, 'info', line) });
    this.#cleanups.push(() => {
      streams.close();
      ptys.close();
      ssh.close();
    });
    return { manifest, directory, env, ptys, ssh, streams, requests };
  }

  async #start(workspace: Workspace): Promise<void> {
    const { manifest } = workspace;
    this.#options.logger.info(
      { agent: manifest.agent_name, workspace: manifest.workspace_name, directory: workspace.directory },
      'received the manifest',
    );
    this.#send({ type: 'startup', version: VERSION, expanded_directory: workspace.directory, subsystems: [] });
    this.#lifecycle.moveTo('starting');
    this.#startStats(manifest.stats_interval, workspace);
    const metadata = new MetadataCollector(manifest.metadata ?? [], {
      cwd: workspace.directory,
      env: workspace.env,
      send: (message) => this.#send(message),
    });
    this.#cleanups.push(() => metadata.stop());
    this.#cleanups.push(watchAppHealth(manifest.apps, (message) => this.#send(message)));
    const results = await this.#runAll(
      workspace,
      manifest.scripts.filter((script) => script.run_on_start),
      'start',
      this.#stopping.signal,
    );
    if (this.#stopping.signal.aborted) return;
    this.#lifecycle.moveTo(outcome(results, { timeout: 'start_timeout', error: 'start_error', ok: 'ready' }));
    this.#options.logger.info({ state: this.#lifecycle.state }, 'start scripts finished');
    // As in the reference, cron scripts begin only once startup is over.
    for (const script of manifest.scripts.filter((s) => s.cron.trim() !== '')) this.#schedule(workspace, script);
  }

  /** Runs a script on its cron schedule until the agent stops; a run still going skips the next. */
  #schedule(workspace: Workspace, script: ManifestScript): void {
    let spec: CronSpec;
    try {
      spec = parseCron(script.cron);
    } catch (error) {
      this.#logs.write(script.log_source_id, 'error', `not scheduled: ${(error as Error).message}`);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    let running = false;
    const arm = (): void => {
      if (this.#stopping.signal.aborted) return;
      const next = nextCron(spec, new Date());
      if (!next) return;
      timer = setTimeout(() => {
        if (!running) {
          running = true;
          void this.#runAll(workspace, [script], 'cron', this.#stopping.signal).finally(() => (running = false));
        }
        arm();
      }, next.getTime() - Date.now());
      timer.unref();
    };
    arm();
    this.#cleanups.push(() => clearTimeout(timer));
  }

  #startStats(intervalSeconds: number, workspace: Workspace): void {
    const intervalMs = this.#options.timing?.statsIntervalMs ?? intervalSeconds * 1000;
    if (!(intervalMs > 0)) return;
    const source: StatsSource = this.#options.stats ?? {
      collect: () => ({
        ...this.#meter.take(),
        session_count_ssh: workspace.ssh.sessionCounts.ssh,
        session_count_reconnecting_pty: workspace.ptys.attachments,
        session_count_vscode: workspace.ssh.sessionCounts.vscode,
        session_count_jetbrains: workspace.ssh.sessionCounts.jetbrains,
        connection_median_latency_ms: this.#connection.latencyMs,
      }),
    };
    const timer = setInterval(() => this.#send({ type: 'stats', ...source.collect() }), intervalMs);
    timer.unref();
    this.#cleanups.push(() => clearInterval(timer));
  }

  /** Runs scripts in parallel, reporting each as it completes. */
  #runAll(workspace: Workspace, scripts: readonly ManifestScript[], stage: ScriptStage, signal?: AbortSignal): Promise<ScriptCompleted[]> {
    const timing = this.#options.timing ?? {};
    return Promise.all(
      scripts.map(async (script) => {
        const result = await runScript(script, {
          stage,
          cwd: workspace.directory,
          env: workspace.env,
          onLine: (level, output) => this.#logs.write(script.log_source_id, level, output),
          ...(this.#options.logDir ? { logDir: this.#options.logDir } : {}),
          ...(timing.killGraceMs !== undefined ? { killGraceMs: timing.killGraceMs } : {}),
          ...(timing.pipeGraceMs !== undefined ? { pipeGraceMs: timing.pipeGraceMs } : {}),
          ...(signal ? { signal } : {}),
        });
        this.#send(result);
        if (result.status !== 'ok')
          this.#options.logger.warn(
            { script: script.display_name, status: result.status, exit_code: result.exit_code, stage },
            'script did not succeed',
          );
        return result;
      }),
    );
  }

  async #shutdown(): Promise<void> {
    this.#stopping.abort();
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
    const grace = this.#options.timing?.shutdownGraceMs ?? 5000;
    const workspace = this.#workspace;
    this.#lifecycle.moveTo('shutting_down');
    if (workspace !== undefined) {
      // Start scripts still running were interrupted through #stopping; their reports still go out.
      await this.#starting;
      const results = await this.#runAll(
        workspace,
        workspace.manifest.scripts.filter((script) => script.run_on_stop),
        'stop',
      );
      this.#lifecycle.moveTo(outcome(results, { timeout: 'shutdown_timeout', error: 'shutdown_error', ok: 'off' }));
    } else {
      this.#lifecycle.moveTo('off');
    }
    const deadline = Date.now() + grace;
    await Promise.all([this.#logs.flush(grace), this.#connection.waitDrained(grace)]);
    if (!this.#connection.drained)
      this.#options.logger.warn({ remaining_ms: Math.max(0, deadline - Date.now()) }, 'stopped before the daemon heard the final reports');
    this.#logs.close();
    await this.#connection.close();
  }
}

function outcome(
  results: readonly ScriptCompleted[],
  states: { readonly timeout: LifecycleState; readonly error: LifecycleState; readonly ok: LifecycleState },
): LifecycleState {
  if (results.some((result) => result.status === 'timed_out')) return states.timeout;
  if (results.some((result) => result.status === 'exit_failure')) return states.error;
  return states.ok;
}

/** The log source devcontainer rebuilds write to; its id is fixed so every agent names it alike. */
const DEVCONTAINER_LOG_SOURCE = { id: '4b5f3c1e-0d6a-4c38-9e4b-6f1d2a7c9e10', display_name: 'Devcontainers' } as const;
