// A team's mixed load on one deployment, through `cove scaletest`'s machinery: workspaces whose
// simulated agents report stats and metadata, terminal streams echoing through the relay, and
// dashboard users loading pages, all at once for a window; then a ramp that doubles the users and
// the streams until the API's p95 passes its target, printing the knee. On SQLite, and on
// PostgreSQL with two replicas behind one database when COVE_TEST_PG_URL is set (agents, streams
// and users spread over both, so streams cross replicas).
//
// Targets (on 2 cores): API p95 < 300 ms, terminal echo p95 < 100 ms, 0 errors, daemon RSS < 1 GiB.
//
//   node --import tsx bench/scale.ts
//   BENCH_SCALE_WORKSPACES=1000 BENCH_SCALE_STREAMS=100 BENCH_SCALE_USERS=50 BENCH_SCALE_SECONDS=60
//   BENCH_SCALE_RAMP_STEPS=5 BENCH_SCALE_RAMP_SECONDS=20 BENCH_SCALE_DATABASES=sqlite,postgres
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedAgentFleet, simulatedAgentTokens } from '../src/cli/scaletest/agent-fleet.js';
import { createWorkspaces } from '../src/cli/scaletest/create-workspaces.js';
import { dashboardUsers, runDashboard, type DashboardUser } from '../src/cli/scaletest/dashboard-load.js';
import { OperationStats } from '../src/cli/scaletest/operation-stats.js';
import { findRunUsers } from '../src/cli/scaletest/scaletest-run.js';
import { ECHO_OPERATION, runWorkspaceTraffic, type TrafficTotals } from '../src/cli/scaletest/workspace-traffic.js';
import { CoveClient } from '../src/sdk/client.js';
import type { Workspace } from '../src/sdk/wire/index.js';
import { createBenchOwner, mib, procSample, startBenchDaemon, type BenchDaemon } from './agents.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';
import { recordFigure } from './summary.js';

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const WORKSPACES = env('BENCH_SCALE_WORKSPACES', 1000);
const STREAMS = env('BENCH_SCALE_STREAMS', 100);
const USERS = env('BENCH_SCALE_USERS', 50);
const SECONDS = env('BENCH_SCALE_SECONDS', 60);
const RAMP_STEPS = env('BENCH_SCALE_RAMP_STEPS', 5);
const RAMP_SECONDS = env('BENCH_SCALE_RAMP_SECONDS', 20);
/** 10 KB/s per stream: 1 KiB every 100 ms. */
const BYTES_PER_TICK = 1024;
const TICK_MS = 100;
/** How often each dashboard user loads the pages. */
const PAGE_INTERVAL_MS = 5000;
const API_P95_TARGET_MS = 300;
const ECHO_P95_TARGET_MS = 100;
const RSS_TARGET_BYTES = 1024 ** 3;

/** A deployment under test: its replicas (one, or two sharing PostgreSQL) and the owner on each. */
interface Deployment {
  readonly label: string;
  readonly daemons: readonly BenchDaemon[];
  readonly owners: readonly CoveClient[];
}

/** One window's figures. */
interface WindowResult {
  readonly apiP95: number;
  readonly echoP95: number;
  readonly errors: number;
  readonly firstErrors: readonly string[];
  readonly requests: number;
  readonly echoes: number;
  readonly rssPeak: number;
  readonly cpuPercent: number;
  /** This process's CPU over the window, in percent of a core: where it nears 100 %, the load generator is what saturates. */
  readonly loadCpuPercent: number;
  /** The API's p95 over the people's first page loads, before the window: every session new, every connection opened at once. */
  readonly coldP95: number;
}

export async function scaleBenchmark(): Promise<void> {
  const databases = (process.env['BENCH_SCALE_DATABASES'] ?? 'sqlite,postgres').split(',').map((d) => d.trim());
  for (const database of databases) {
    const pgUrl = process.env['COVE_TEST_PG_URL'];
    if (database === 'postgres' && !pgUrl) {
      console.log('scale (postgres): skipped, COVE_TEST_PG_URL is not set');
      continue;
    }
    const scratch = database === 'postgres' && pgUrl ? await createScratchDatabase(pgUrl) : undefined;
    try {
      await scaleOn(database, scratch);
    } finally {
      await scratch?.drop();
    }
  }
}

async function scaleOn(database: string, scratch: ScratchDatabase | undefined): Promise<void> {
  const label = scratch ? `${database}, 2 replicas` : database;
  const logPath = (i: number): string => join(tmpdir(), `cove-bench-scale-${database}-${i}-${process.pid}.log`);
  const first = await startBenchDaemon(2, logPath(0), { postgresUrl: scratch?.url });
  const daemons = [first];
  try {
    // The second replica starts once the first has migrated the database.
    if (scratch) daemons.push(await startBenchDaemon(2, logPath(1), { postgresUrl: scratch.url }));
    const owner = await createBenchOwner(first.url);
    const owners = daemons.map((d) => new CoveClient({ url: d.url, token: owner.token }));
    const deployment: Deployment = { label, daemons, owners };
    await runScale(deployment);
  } finally {
    for (const daemon of daemons) await daemon.stop();
  }
}

async function runScale(deployment: Deployment): Promise<void> {
  const { label, owners } = deployment;
  const owner = owners[0] as CoveClient;
  const setup = new OperationStats();
  const started = performance.now();
  const created = await createWorkspaces(
    owner,
    { count: WORKSPACES, parameters: [], concurrency: 20, simulatedAgents: true, waitForAgents: false, agentTimeoutMs: 0 },
    setup,
  );
  await created.fleet?.stop();
  const setupSeconds = (performance.now() - started) / 1000;
  if (setup.errors > 0)
    throw new Error(`scale (${label}): set-up failed: ${JSON.stringify(setup.summaries().filter((s) => s.errors > 0))}`);
  // The agents, spread over the replicas, reporting stats every 10 s and their metadata.
  const tokens = await simulatedAgentTokens(owner, created.workspaces, 20);
  const fleets = owners.map(
    (client, r) =>
      new SimulatedAgentFleet(
        client.url,
        tokens.filter((_, i) => i % owners.length === r),
        { statsIntervalSeconds: 10 },
      ),
  );
  const connectStarted = performance.now();
  const connected = (await Promise.all(fleets.map((fleet) => fleet.connect(50, 120_000)))).reduce((a, b) => a + b, 0);
  console.log(
    `scale (${label}): ${created.workspaces.length} users and workspaces in ${setupSeconds.toFixed(1)} s, ${connected} agents connected in ${((performance.now() - connectStarted) / 1000).toFixed(1)} s`,
  );
  const users = await findRunUsers(owner, created.runId);
  try {
    const result = await loadWindow(deployment, created.workspaces, users, STREAMS, USERS, SECONDS);
    const verdict = (ok: boolean): string => (ok ? 'ok' : 'MISSED');
    console.log(
      `scale (${label}): ${USERS} dashboard users, ${STREAMS} streams at 10 KB/s, ${connected} agents for ${SECONDS} s: API p95 ${result.apiP95.toFixed(1)} ms (${result.requests} requests), echo p95 ${result.echoP95.toFixed(1)} ms (${result.echoes} echoes), ${result.errors} errors${result.firstErrors.length ? ` (${result.firstErrors.join(' | ')})` : ''}, daemon RSS peak ${mib(result.rssPeak)}, daemon CPU ${result.cpuPercent.toFixed(0)}% of a core, load generator CPU ${result.loadCpuPercent.toFixed(0)}%; the first page loads before it (cold start) API p95 ${result.coldP95.toFixed(1)} ms`,
    );
    recordFigure({
      name: `scale (${label}): API p95`,
      value: `${result.apiP95.toFixed(1)} ms`,
      target: `< ${API_P95_TARGET_MS} ms`,
      ok: result.apiP95 < API_P95_TARGET_MS,
    });
    recordFigure({
      name: `scale (${label}): echo p95`,
      value: `${result.echoP95.toFixed(1)} ms`,
      target: `< ${ECHO_P95_TARGET_MS} ms`,
      ok: result.echoP95 < ECHO_P95_TARGET_MS,
    });
    recordFigure({ name: `scale (${label}): errors`, value: String(result.errors), target: '0', ok: result.errors === 0 });
    recordFigure({
      name: `scale (${label}): daemon RSS peak`,
      value: mib(result.rssPeak),
      target: '< 1024 MiB',
      ok: result.rssPeak < RSS_TARGET_BYTES,
    });
    console.log(
      `scale (${label}): ${verdict(result.apiP95 < API_P95_TARGET_MS && result.echoP95 < ECHO_P95_TARGET_MS && result.errors === 0)}`,
    );

    // The ramp: double the users and the streams until the API's p95 passes its target.
    let streams = STREAMS;
    let people = USERS;
    let knee: string | undefined;
    for (let step = 1; step <= RAMP_STEPS && !knee; step++) {
      streams *= 2;
      people *= 2;
      const ramp = await loadWindow(deployment, created.workspaces, users, streams, people, RAMP_SECONDS);
      console.log(
        `scale (${label}) ramp ${step}: ${people} users, ${Math.min(streams, created.workspaces.length)} streams: API p95 ${ramp.apiP95.toFixed(1)} ms, echo p95 ${ramp.echoP95.toFixed(1)} ms, ${ramp.errors} errors${ramp.firstErrors.length ? ` (${ramp.firstErrors.join(' | ')})` : ''}, RSS ${mib(ramp.rssPeak)}, daemon CPU ${ramp.cpuPercent.toFixed(0)}%, load generator CPU ${ramp.loadCpuPercent.toFixed(0)}%, cold start API p95 ${ramp.coldP95.toFixed(1)} ms`,
      );
      if (ramp.apiP95 > API_P95_TARGET_MS) knee = `${people} users, ${Math.min(streams, created.workspaces.length)} streams`;
    }
    console.log(`scale (${label}) knee: ${knee ?? `not reached by ${people} users and ${streams} streams`}`);
    recordFigure({
      name: `scale (${label}): knee (API p95 > ${API_P95_TARGET_MS} ms)`,
      value: knee ?? `> ${people} users`,
      target: '-',
      ok: undefined,
    });
  } finally {
    await Promise.all(fleets.map((fleet) => fleet.stop()));
  }
}

/** One window of the mixed load: streams and dashboard users at once, with the daemons' RSS and CPU sampled. */
async function loadWindow(
  deployment: Deployment,
  workspaces: readonly Workspace[],
  users: Parameters<typeof dashboardUsers>[1],
  streams: number,
  people: number,
  seconds: number,
): Promise<WindowResult> {
  const { owners, daemons } = deployment;
  const stats = new OperationStats();
  const totals: TrafficTotals = { connections: 0, bytesSent: 0, bytesReceived: 0, echoes: 0 };
  // Users repeat when there are more people than users; each person has a session of their own.
  const repeated = Array.from({ length: people }, (_, i) => users[i % users.length] as (typeof users)[number]);
  const persons: DashboardUser[] = [];
  for (const [r, client] of owners.entries())
    persons.push(
      ...(await dashboardUsers(
        client,
        repeated.filter((_, i) => i % owners.length === r),
        people,
      )),
    );
  // Each person loads the pages once before the window: the window measures a team at work, whose
  // browsers are signed in and connected. That first load is every session new to the daemon and
  // thousands of connections opened at once, as after a restart: its p95 is printed, as the cold start.
  const cold = new OperationStats();
  await runDashboard(persons, { intervalMs: PAGE_INTERVAL_MS, durationMs: PAGE_INTERVAL_MS }, cold);
  const coldP95 = cold.combined('api', (op) => op.startsWith('GET ')).p95_ms;
  const chosen = workspaces.slice(0, Math.min(streams, workspaces.length));
  const rss: number[] = [];
  const cpu0 = daemons.map((d) => procSample(d.pid)?.cpuSeconds ?? 0);
  const sampler = setInterval(() => rss.push(...daemons.map((d) => procSample(d.pid)?.rssBytes ?? 0)), 1000);
  const started = performance.now();
  const ownCpu = process.cpuUsage();
  try {
    await Promise.all([
      // Streams through the last replica: with two, an agent held by the other is reached across them.
      runWorkspaceTraffic(
        owners.at(-1) as CoveClient,
        chosen,
        { mode: { kind: 'pty' }, bytesPerTick: BYTES_PER_TICK, tickIntervalMs: TICK_MS, durationMs: seconds * 1000, concurrency: 20 },
        stats,
        totals,
      ),
      runDashboard(persons, { intervalMs: PAGE_INTERVAL_MS, durationMs: seconds * 1000 }, stats),
    ]);
  } finally {
    clearInterval(sampler);
  }
  const wall = (performance.now() - started) / 1000;
  const own = process.cpuUsage(ownCpu);
  const cpuSeconds = daemons.reduce((sum, d, i) => sum + (procSample(d.pid)?.cpuSeconds ?? 0) - (cpu0[i] ?? 0), 0);
  const api = stats.combined('api', (op) => op.startsWith('GET '));
  const echo = stats.combined('echo', (op) => op === ECHO_OPERATION || op.startsWith('open '));
  const all = stats.summaries();
  // BENCH_SCALE_VERBOSE=1 prints every operation's figures: which route is slow, or failing.
  if (process.env['BENCH_SCALE_VERBOSE'] === '1')
    for (const op of all)
      console.log(
        `  ${op.operation}: ${op.count} ok, ${op.errors} errors, p50 ${op.p50_ms.toFixed(1)} ms, p95 ${op.p95_ms.toFixed(1)} ms${op.first_errors.length ? ` (${op.first_errors.join(' | ')})` : ''}`,
      );
  return {
    apiP95: api.p95_ms,
    echoP95: stats.combined('echo only', (op) => op === ECHO_OPERATION).p95_ms,
    errors: stats.errors,
    firstErrors: all.flatMap((op) => op.first_errors.map((m) => `${op.operation}: ${m}`)).slice(0, 3),
    requests: api.count,
    echoes: echo.count,
    rssPeak: Math.max(0, ...rss),
    cpuPercent: (cpuSeconds / wall) * 100,
    loadCpuPercent: ((own.user + own.system) / 1e6 / wall) * 100,
    coldP95,
  };
}
