// Many agents on one daemon: 2,000 simulated workspace agents (100 workspaces x 20 by default),
// each with its own rpc WebSocket, answering the daemon's pings, reporting startup and lifecycle,
// then stats and a batch of log lines every 10 s. While they are all connected the benchmark reads
// the daemon's RSS and CPU from /proc and the latency of `GET /workspaceagents/{id}` as the owner;
// the baseline is the same latency with no agent connected, measured first in the same run.
//
// Three processes: the daemon (`bin/cove serve`), the simulator (this file with `--simulate`, so
// its CPU is not the daemon's) and this one (set-up, probes, /proc sampling).
//
//   node --import tsx bench/agents.ts
//   BENCH_AGENT_WORKSPACES=100 BENCH_AGENTS_PER_WORKSPACE=20 BENCH_AGENT_WINDOW_SECONDS=30
import { recordFigure } from './summary.js';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { SimulatedAgentFleet } from '../src/cli/scaletest/agent-fleet.js';
import { mapLimit } from '../src/cli/scaletest/map-limit.js';
import { newSimulatedAgentCounters } from '../src/cli/scaletest/simulated-agent.js';
import { createTar } from '../src/lib/archive/index.js';
import { CoveClient } from '../src/sdk/client.js';
import type { WorkspaceAgent } from '../src/sdk/wire/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cove = join(root, 'bin', 'cove');
const password = 'Bench-Password-2026!';
const STATS_INTERVAL_MS = 10_000;

// ---------------------------------------------------------------------------------------------
// Helpers shared with bench/relay.ts.

export interface BenchDaemon {
  readonly url: string;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly dataDir: string;
  /** WARN and ERROR lines of the daemon's log, as printed. */
  readonly problems: string[];
  /** Set when the daemon exited before it was asked to. */
  exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  stop(): Promise<void>;
}

/** Where a bench daemon keeps its data, and extra flags for its node. */
export interface BenchDaemonOptions {
  /** A PostgreSQL database to use instead of SQLite in the data directory. */
  readonly postgresUrl?: string | undefined;
  /** Flags for the daemon's node, after those of BENCH_DAEMON_NODE_ARGS. */
  readonly nodeArgs?: readonly string[];
}

/** Starts `bin/cove serve` on a fresh data directory; its log goes to `logPath` when given. */
export async function startBenchDaemon(
  provisionerDaemons: number,
  logPath?: string,
  options: BenchDaemonOptions = {},
): Promise<BenchDaemon> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-bench-'));
  // BENCH_DAEMON_NODE_ARGS reaches the daemon's node only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = [...(process.env['BENCH_DAEMON_NODE_ARGS'] ?? '').split(' ').filter(Boolean), ...(options.nodeArgs ?? [])];
  const env: NodeJS.ProcessEnv = { ...process.env, COVE_SECRET_STORE: 'file' };
  // Through the environment, so the password stays out of the process list.
  if (options.postgresUrl) env['COVE_PG_CONNECTION_URL'] = options.postgresUrl;
  else delete env['COVE_PG_CONNECTION_URL'];
  const args = [
    'serve',
    '--http-address',
    '127.0.0.1:0',
    '--data-dir',
    dataDir,
    '--provisioner-daemons',
    String(provisionerDaemons),
    '--dangerous-disable-rate-limits',
  ];
  const child = spawn(process.execPath, [...nodeArgs, cove, ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log = logPath ? createWriteStream(logPath) : undefined;
  const problems: string[] = [];
  let stopping = false;
  let pending = '';
  const daemon: BenchDaemon = {
    url: '',
    child,
    pid: child.pid ?? 0,
    dataDir,
    problems,
    exited: undefined,
    async stop() {
      stopping = true;
      process.off('exit', killOnExit);
      if (!daemon.exited && child.exitCode === null) {
        const gone = new Promise<[number | null, NodeJS.Signals | null]>((r) => child.once('exit', (code, signal) => r([code, signal])));
        const asked = performance.now();
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        const [code, signal] = await gone;
        clearTimeout(timer);
        const seconds = (performance.now() - asked) / 1000;
        if (code !== 0 || seconds > 5)
          console.log(`!! the daemon took ${seconds.toFixed(1)} s to stop on SIGTERM and exited with code ${code}, signal ${signal}`);
      }
      log?.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  // If this process dies first (an error, a closed stdout), the daemon goes with it.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const url = await new Promise<string>((resolvePromise, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log?.write(text);
      if (!daemon.url) {
        seen += text;
        const match = /cove is listening url=(\S+)/.exec(seen);
        if (match?.[1]) resolvePromise(match[1]);
      }
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (/^\S+\s+(WARN|ERROR|FATAL)\b/.test(line)) problems.push(line);
    });
    child.once('exit', (code, signal) => {
      if (!stopping) {
        daemon.exited = { code, signal };
        console.log(`!! the daemon exited unexpectedly (code ${code}, signal ${signal})`);
      }
      reject(new Error(`the daemon exited with ${code}: ${seen}`));
    });
  });
  (daemon as { url: string }).url = url;
  return daemon;
}

/** The first user, signed in. */
export async function createBenchOwner(url: string): Promise<CoveClient> {
  const anonymous = new CoveClient({ url });
  await anonymous.createFirstUser({ email: 'bench@example.com', username: 'bench', password });
  const { session_token: token } = await anonymous.login('bench@example.com', password);
  return anonymous.withToken(token);
}

/** A template version from an `echo.json`, imported and waited for. */
export async function importEchoVersion(owner: CoveClient, echo: unknown, templateId?: string): Promise<string> {
  const { id } = await owner.uploadFile(await createTar({ 'echo.json': JSON.stringify(echo) }));
  const version = await owner.createTemplateVersion('default', { file_id: id, ...(templateId ? { template_id: templateId } : {}) });
  await owner.followTemplateVersionLogs(version.id, () => undefined);
  const done = await owner.templateVersion(version.id);
  if (done.job.status !== 'succeeded') throw new Error(`template version import ${done.job.status}: ${done.job.error}`);
  return version.id;
}

/** Creates a workspace, waits for its build, and returns its agents. */
export async function createBenchWorkspace(
  owner: CoveClient,
  name: string,
  from: { template_id: string } | { template_version_id: string },
): Promise<WorkspaceAgent[]> {
  const workspace = await owner.createWorkspace('me', { name, ...from });
  await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
  const build = await owner.workspaceBuild(workspace.latest_build.id);
  if (build.job.status !== 'succeeded') throw new Error(`workspace ${name}: build ${build.job.status}: ${build.job.error}`);
  return build.resources.flatMap((r) => r.agents);
}

/** CPU seconds (user + system) and RSS (bytes) of a process, from /proc. */
export function procSample(pid: number): { cpuSeconds: number; rssBytes: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5); the slice starts at field 3.
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    return { cpuSeconds: ticks / CLOCK_TICKS, rssBytes: rssKb * 1024 };
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = 100;

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** The median of unsorted `values` (for an even count, the lower of the middle two). */
export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export { mapLimit };

export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The simulator (child process).

interface SimulatorReport {
  readonly agents: number;
  readonly connectedNow: number;
  readonly everConnected: number;
  readonly connectFailures: number;
  readonly disconnects: number;
  readonly reconnects: number;
  readonly pingsReceived: number;
  readonly daemonErrors: number;
  readonly firstDaemonErrors: string[];
  readonly logSourceOk: number;
  readonly logSourceFailed: number;
  readonly patchOk: number;
  readonly patchFailed: number;
  readonly patchFailures: Record<string, number>;
  readonly patchP50Ms: number;
  readonly patchP95Ms: number;
  readonly statsSent: number;
  readonly closeCodes: Record<string, number>;
}

type ToSimulator =
  | { type: 'start'; url: string; tokens: string[]; connectConcurrency: number }
  | { type: 'report'; resetLatency?: boolean }
  | { type: 'stop' };
type FromSimulator =
  { type: 'connected'; ms: number; report: SimulatorReport } | { type: 'report'; report: SimulatorReport } | { type: 'stopped' };

async function simulate(): Promise<void> {
  const send = (message: FromSimulator): void => void process.send?.(message);
  let fleet: SimulatedAgentFleet | undefined;
  const report = (): SimulatorReport => {
    const c = fleet?.counters ?? newSimulatedAgentCounters();
    const sorted = [...c.patchLatencies].sort((a, b) => a - b);
    return {
      agents: fleet?.agents.length ?? 0,
      connectedNow: c.connectedNow,
      everConnected: c.everConnected,
      connectFailures: c.connectFailures,
      disconnects: c.disconnects,
      reconnects: c.reconnects,
      pingsReceived: c.pingsReceived,
      daemonErrors: c.daemonErrors,
      firstDaemonErrors: c.firstDaemonErrors,
      logSourceOk: c.logSourceOk,
      logSourceFailed: c.logSourceFailed,
      patchOk: c.patchOk,
      patchFailed: c.patchFailed,
      patchFailures: c.patchFailures,
      statsSent: c.statsSent,
      closeCodes: c.closeCodes,
      patchP50Ms: percentile(sorted, 50),
      patchP95Ms: percentile(sorted, 95),
    };
  };

  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: ToSimulator) => {
    if (message.type === 'start') {
      // Stats and a batch of log lines every 10 s; a quarter of the agents look busy.
      const started = performance.now();
      const agents = new SimulatedAgentFleet(message.url, message.tokens, { statsIntervalSeconds: STATS_INTERVAL_MS / 1000, logs: true });
      fleet = agents;
      void agents
        .connect(message.connectConcurrency, 0)
        .then(() => send({ type: 'connected', ms: performance.now() - started, report: report() }));
    } else if (message.type === 'report') {
      send({ type: 'report', report: report() });
      if (message.resetLatency && fleet) fleet.counters.patchLatencies = [];
    } else if (message.type === 'stop') {
      void (fleet?.stop() ?? Promise.resolve()).then(() => {
        send({ type: 'stopped' });
        setTimeout(() => process.exit(0), 50);
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The benchmark (parent process).

interface ProbeResult {
  readonly latencies: number[];
  readonly errors: number;
  readonly statuses: Record<string, number>;
  readonly seconds: number;
}

/** `GET /workspaceagents/{id}` for random agents, `concurrency` at a time. */
async function probe(owner: CoveClient, agentIds: readonly string[], requests: number, concurrency: number): Promise<ProbeResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const started = performance.now();
  await mapLimit(
    Array.from({ length: requests }, () => agentIds[Math.floor(Math.random() * agentIds.length)] as string),
    concurrency,
    async (id) => {
      const t0 = performance.now();
      try {
        const response = await fetch(`${owner.url}/api/v2/workspaceagents/${id}`, {
          headers: { 'Service-Session-Token': owner.token ?? '' },
          signal: AbortSignal.timeout(30_000),
        });
        const body = (await response.json()) as { status?: string };
        latencies.push(performance.now() - t0);
        if (response.status !== 200) errors++;
        const key = response.status === 200 ? String(body.status) : `http ${response.status}`;
        statuses[key] = (statuses[key] ?? 0) + 1;
      } catch {
        errors++;
      }
    },
  );
  return { latencies: latencies.sort((a, b) => a - b), errors, statuses, seconds: (performance.now() - started) / 1000 };
}

function describeProbe(label: string, result: ProbeResult): string {
  const l = result.latencies;
  const status = Object.entries(result.statuses)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `${label}: p50 ${percentile(l, 50).toFixed(2)} ms, p95 ${percentile(l, 95).toFixed(2)} ms, p99 ${percentile(l, 99).toFixed(2)} ms, max ${(l.at(-1) ?? Number.NaN).toFixed(1)} ms (${l.length} answers, ${result.errors} errors, ${(l.length / result.seconds).toFixed(0)} req/s; agent status: ${status})`;
}

/** Samples the daemon's RSS every second until stopped. */
function rssSampler(pid: number): { stop(): number[] } {
  const samples: number[] = [];
  const timer = setInterval(() => {
    const sample = procSample(pid);
    if (sample) samples.push(sample.rssBytes);
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      return samples;
    },
  };
}

/** Waits (up to 10 s) until the daemon uses under 5% of a core over a second. */
async function quiet(pid: number): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const before = procSample(pid);
    await sleep(1000);
    if (cpuPercent(before, procSample(pid), 1) < 5) return;
  }
}

function cpuPercent(from: { cpuSeconds: number } | undefined, to: { cpuSeconds: number } | undefined, wallSeconds: number): number {
  if (!from || !to) return Number.NaN;
  return ((to.cpuSeconds - from.cpuSeconds) / wallSeconds) * 100;
}

export async function agentsBenchmark(): Promise<void> {
  const workspaces = Number(process.env['BENCH_AGENT_WORKSPACES'] ?? 100);
  const perWorkspace = Number(process.env['BENCH_AGENTS_PER_WORKSPACE'] ?? 20);
  const windowSeconds = Number(process.env['BENCH_AGENT_WINDOW_SECONDS'] ?? 30);
  const probes = Number(process.env['BENCH_AGENT_PROBES'] ?? 2000);
  const total = workspaces * perWorkspace;
  const benchStarted = performance.now();
  const logPath = join(tmpdir(), `cove-bench-agents-${process.pid}.log`);
  const daemon = await startBenchDaemon(3, logPath);
  let simulator: ChildProcess | undefined;
  try {
    const owner = await createBenchOwner(daemon.url);

    // One template version per workspace: the echo provisioner keeps the tokens a version writes,
    // and a token must belong to one agent only.
    const setupStarted = performance.now();
    const tokens: string[][] = Array.from({ length: workspaces }, (_, w) =>
      Array.from({ length: perWorkspace }, (_, a) => `bench-${w}-${a}-${randomBytes(12).toString('hex')}`),
    );
    const echoFor = (w: number): unknown => ({
      apply: {
        resources: [
          {
            name: 'box',
            type: 'echo',
            agents: (tokens[w] ?? []).map((token, a) => ({ name: `a${a + 1}`, auth_token: token, directory: '' })),
          },
        ],
      },
    });
    const firstVersion = await importEchoVersion(owner, echoFor(0));
    const template = await owner.createTemplate('default', { name: 'agents', template_version_id: firstVersion });
    const versions = [
      firstVersion,
      ...(await mapLimit(
        Array.from({ length: workspaces - 1 }, (_, i) => i + 1),
        6,
        (w) => importEchoVersion(owner, echoFor(w), template.id),
      )),
    ];
    const versionsSeconds = (performance.now() - setupStarted) / 1000;
    const agentLists = await mapLimit(versions, 6, (versionId, w) =>
      createBenchWorkspace(owner, `ws-${w}`, { template_version_id: versionId }),
    );
    const agentIds = agentLists.flat().map((a) => a.id);
    if (agentIds.length !== total) throw new Error(`expected ${total} agents, the builds made ${agentIds.length}`);
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    console.log(
      `agents: set-up ${workspaces} template versions + ${workspaces} workspaces x ${perWorkspace} agents in ${setupSeconds.toFixed(1)} s (versions ${versionsSeconds.toFixed(1)} s)`,
    );

    // Baseline: no agent connected, after a warm-up (JIT) and once the daemon has gone quiet.
    await probe(owner, agentIds, 1000, 2);
    await quiet(daemon.pid);
    const idleCpu0 = procSample(daemon.pid);
    const idle = await probe(owner, agentIds, probes, 2);
    const idleCpu1 = procSample(daemon.pid);
    const idleRss = procSample(daemon.pid)?.rssBytes ?? Number.NaN;
    console.log(describeProbe('agents idle  ', idle));

    // Connect the simulated agents.
    simulator = fork(fileURLToPath(import.meta.url), ['--simulate'], {
      cwd: root,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const sim = simulator;
    const ask = <T extends FromSimulator['type']>(
      message: ToSimulator,
      answer: T,
      timeoutMs: number,
    ): Promise<Extract<FromSimulator, { type: T }>> =>
      new Promise((resolvePromise, reject) => {
        const timer = setTimeout(() => reject(new Error(`the simulator did not answer ${message.type} in ${timeoutMs} ms`)), timeoutMs);
        const onMessage = (m: FromSimulator): void => {
          if (m.type !== answer) return;
          clearTimeout(timer);
          sim.off('message', onMessage);
          resolvePromise(m as Extract<FromSimulator, { type: T }>);
        };
        sim.on('message', onMessage);
        sim.send(message);
      });
    const rss = rssSampler(daemon.pid);
    const connectCpu0 = procSample(daemon.pid);
    const connected = await ask({ type: 'start', url: daemon.url, tokens: tokens.flat(), connectConcurrency: 50 }, 'connected', 120_000);
    const connectCpu1 = procSample(daemon.pid);
    const connectSeconds = connected.ms / 1000;
    console.log(
      `agents: ${connected.report.connectedNow}/${total} connected in ${connectSeconds.toFixed(1)} s (${(connected.report.connectedNow / connectSeconds).toFixed(0)}/s, 50 at a time; daemon CPU ${cpuPercent(connectCpu0, connectCpu1, connectSeconds).toFixed(0)}% meanwhile), ${connected.report.connectFailures} failed attempts`,
    );

    // The window: first the agents alone (CPU, RSS), then the probes on top.
    const quietSeconds = Math.max(10, windowSeconds / 2);
    await ask({ type: 'report', resetLatency: true }, 'report', 10_000);
    const windowStart = performance.now();
    const cpu0 = procSample(daemon.pid);
    await sleep(quietSeconds * 1000);
    const cpu1 = procSample(daemon.pid);
    const quietWall = (performance.now() - windowStart) / 1000;
    const midReport = (await ask({ type: 'report' }, 'report', 10_000)).report;
    const loaded = await probe(owner, agentIds, probes, 2);
    const restMs = windowSeconds * 1000 - (performance.now() - windowStart);
    if (restMs > 0) await sleep(restMs);
    const cpu2 = procSample(daemon.pid);
    const windowWall = (performance.now() - windowStart) / 1000;
    const end = (await ask({ type: 'report' }, 'report', 10_000)).report;
    const rssSamples = rss.stop();
    const rssEnd = rssSamples.at(-1) ?? Number.NaN;
    const rssPeak = Math.max(...rssSamples);

    console.log(describeProbe('agents loaded', loaded));
    const ratio = percentile(loaded.latencies, 95) / percentile(idle.latencies, 95);
    console.log(
      `agents: daemon RSS idle ${mib(idleRss)}, with ${end.connectedNow} agents ${mib(rssEnd)} (peak ${mib(rssPeak)}, ${((rssEnd - idleRss) / 1024 / Math.max(1, end.connectedNow)).toFixed(0)} KiB per agent)`,
    );
    console.log(
      `agents: daemon CPU idle probes ${cpuPercent(idleCpu0, idleCpu1, idle.seconds).toFixed(0)}%, agents alone ${cpuPercent(cpu0, cpu1, quietWall).toFixed(0)}% (${quietWall.toFixed(0)} s), whole window ${cpuPercent(cpu0, cpu2, windowWall).toFixed(0)}% (${windowWall.toFixed(0)} s; 100% = one core of 2)`,
    );
    console.log(
      `agents: in the window ${end.connectedNow} connected, ${end.disconnects} dropped, ${end.reconnects} reconnects, ${end.pingsReceived} pings answered, ${end.statsSent} stats sent, ${end.daemonErrors} error messages from the daemon${end.firstDaemonErrors.length ? ` (${end.firstDaemonErrors.join(' | ')})` : ''}`,
    );
    const failures = Object.entries(end.patchFailures)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    console.log(
      `agents: log sources ${end.logSourceOk} ok / ${end.logSourceFailed} failed; log PATCHes ${end.patchOk} ok / ${end.patchFailed} failed${failures ? ` (${failures})` : ''}; in the window PATCH p50 ${end.patchP50Ms.toFixed(1)} ms, p95 ${end.patchP95Ms.toFixed(1)} ms (before the probes: ${midReport.patchOk} ok)`,
    );
    const verdict = daemon.exited
      ? 'DAEMON EXITED'
      : loaded.errors > 0
        ? 'PROBE ERRORS'
        : ratio > 10
          ? 'p95 EXPLODED'
          : ratio > 3
            ? 'degraded'
            : 'ok';
    console.log(
      `agents ratio (p95 GET /workspaceagents/{id}, ${end.connectedNow} agents connected / none): ${ratio.toFixed(2)}  ${verdict}`,
    );
    recordFigure({
      name: `agents: p95 with ${end.connectedNow} agents / none`,
      value: ratio.toFixed(2),
      target: '<= 3',
      ok: verdict === 'ok',
    });

    // Everyone leaves: does the memory come back?
    await ask({ type: 'stop' }, 'stopped', 20_000);
    await sleep(5000);
    const after = procSample(daemon.pid);
    await quiet(daemon.pid);
    const afterProbe = await probe(owner, agentIds, probes, 2);
    console.log(
      `${describeProbe('agents gone  ', afterProbe)}; loaded p95 / this p95 ${(percentile(loaded.latencies, 95) / percentile(afterProbe.latencies, 95)).toFixed(2)}`,
    );
    const problems = daemon.problems;
    console.log(
      `agents: after all disconnected (5 s) daemon RSS ${after ? mib(after.rssBytes) : 'gone'}; daemon log ${problems.length} WARN/ERROR lines${problems.length ? `, first: ${problems.slice(0, 3).join(' | ')}` : ''} (log ${logPath}); total ${((performance.now() - benchStarted) / 1000).toFixed(0)} s`,
    );
  } catch (error) {
    if (daemon.exited)
      console.log(`agents: THE DAEMON EXITED (code ${daemon.exited.code}, signal ${daemon.exited.signal}); log ${logPath}`);
    throw error;
  } finally {
    if (simulator && simulator.exitCode === null) simulator.kill('SIGTERM');
    await daemon.stop();
  }
}

if (process.argv.includes('--simulate')) {
  await simulate();
} else if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await agentsBenchmark();
}
