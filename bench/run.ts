// Benchmarks that print a ratio against a baseline measured in the same run:
//   1. authenticated GET /api/v2/users/me on `cove serve`, against a bare fastify route answering
//      the same bytes (requests per second, 50 connections; target ratio >= 0.6): rounds on a fresh
//      daemon each (BENCH_API_ROUNDS, default 5), each a run of both back to back (BENCH_SECONDS
//      each), and the median of the rounds' ratios;
//   2. `cove --version` wall time against `node -e 0` (target ratio <= 1.5);
//   3. 2,000 simulated agents on one daemon: p95 of GET /workspaceagents/{id} against no agents,
//      with the daemon's RSS and CPU (bench/agents.ts, about 70 s);
//   4. one TCP stream through the relay against direct loopback (bench/relay.ts, about 20 s);
//   5. a 25-row page of GET /workspaces (plain, owner:me, status:running), /templates and /users
//      at 100, 1,000 and 10,000 seeded rows: p50 at 10,000 / at 100 (target <= 2, and under 50 ms),
//      on SQLite and, when COVE_TEST_PG_URL is set, PostgreSQL (bench/lists.ts, a few minutes);
//   6. `--version` of the single executable (`npm run package`, built once and cached) against
//      `node -e 0` (target ratio <= 1.5);
//   7. `cove --version` (target ratio <= 1.3), `cove whoami`, `cove ls` and `cove templates list`
//      against a local daemon (target ratio <= 1.5), each against `node -e 0` in pairs of runs, for
//      bin/cove and the single executable (bench/cli.ts);
//   8. agent log ingest with 100- and 1,000-line batches against a plain batched insert into the
//      same SQLite file (bench/logs.ts; targets >= 0.25 and >= 0.5);
//   9. 500 workspaces created and started from an echo template, 20 requests at a time: builds/s
//      (target >= 150 on SQLite), request latencies and daemon CPU per build; then 1,000 SSE and
//      1,000 WebSocket watchers over three open/close cycles: completed_at -> event delay (target
//      p95 < 50 ms) and idle RSS (target within 10% of the first); on PostgreSQL too when
//      COVE_TEST_PG_URL is set (target >= 0.7 x SQLite builds/s) (bench/builds.ts, about 3 minutes
//      per database).
//  10. a team's mixed load (bench/scale.ts): 1,000 workspaces with simulated agents, 100 terminal
//      streams at 10 KB/s and 50 dashboard users for 60 s (API p95 < 300 ms, echo p95 < 100 ms,
//      0 errors, RSS < 1 GiB), then a ramp to the knee; on SQLite and on two PostgreSQL replicas.
// BENCH_ONLY=startup,api,agents,relay,lists,single-file,cli,logs,builds,scale picks some of them (default: all, in that order).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { CoveClient } from '../src/sdk/client.js';
import { agentsBenchmark, median } from './agents.js';
import { buildsBenchmark } from './builds.js';
import { cliBenchmark } from './cli.js';
import { listsBenchmark } from './lists.js';
import { logsBenchmark } from './logs.js';
import { relayBenchmark } from './relay.js';
import { scaleBenchmark } from './scale.js';
import { singleExecutable } from '../test/helpers/single-executable.js';
import { printSummary, recordFigure } from './summary.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cove = join(root, 'bin', 'cove');
const seconds = Number(process.env['BENCH_SECONDS'] ?? 4);
const apiRounds = Number(process.env['BENCH_API_ROUNDS'] ?? 5);
const password = 'Bench-Password-2026!';

function started(child: ChildProcess, stream: 'stdout' | 'stderr', pattern: RegExp): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let seen = '';
    child[stream]?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = pattern.exec(seen);
      if (match?.[1]) resolvePromise(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${seen}`)));
  });
}

async function requestsPerSecond(url: string, headers: Record<string, string>, duration = seconds): Promise<number> {
  const result = await autocannon({ url, connections: 50, duration, headers });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

async function apiBenchmark(): Promise<void> {
  // Each round has a daemon of its own: one daemon's pace holds for its whole life but differs
  // from the next one's (the same build measured 22,000 and 32,000 req/s in two daemons, against
  // the same baseline), so rounds on one daemon would repeat its luck rather than measure.
  const ratios: number[] = [];
  for (let round = 1; round <= apiRounds; round++) ratios.push(await apiRound(round));
  const ratio = median(ratios);
  console.log(
    `api ratio (cove / bare fastify, median of ${apiRounds} rounds): ${ratio.toFixed(2)}  target >= 0.6  ${ratio >= 0.6 ? 'ok' : 'BELOW TARGET'}`,
  );
  recordFigure({ name: 'api: GET /users/me / bare fastify', value: ratio.toFixed(2), target: '>= 0.6', ok: ratio >= 0.6 });
}

/** One round on a fresh daemon and baseline: both warmed up, then measured back to back. Returns cove / baseline. */
async function apiRound(round: number): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-bench-'));
  const server = spawn(
    cove,
    ['serve', '--http-address', '127.0.0.1:0', '--data-dir', dataDir, '--provisioner-daemons', '0', '--dangerous-disable-rate-limits'],
    {
      env: { ...process.env, COVE_SECRET_STORE: 'file' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let baseline: ChildProcess | undefined;
  try {
    const url = await started(server, 'stderr', /cove is listening url=(\S+)/);
    const anonymous = new CoveClient({ url });
    await anonymous.createFirstUser({ email: 'bench@example.com', username: 'bench', password });
    const { session_token: token } = await anonymous.login('bench@example.com', password);
    const body = await fetch(`${url}/api/v2/users/me`, { headers: { 'Service-Session-Token': token } }).then((r) => r.text());

    baseline = spawn(process.execPath, [join(root, 'bench', 'baseline-server.mjs')], {
      env: { ...process.env, BENCH_BODY: body },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const baselineUrl = await started(baseline, 'stdout', /(http:\S+)/);

    const baseRun = (duration?: number) => requestsPerSecond(`${baselineUrl}/api/v2/users/me`, {}, duration);
    const ourRun = (duration?: number) => requestsPerSecond(`${url}/api/v2/users/me`, { 'Service-Session-Token': token }, duration);
    // A short warm-up of each lets the JIT settle before the measured runs.
    await baseRun(2);
    await ourRun(2);
    // Back to back, each round with the other first: the machine's pace drifts between runs a
    // minute apart (the baseline alone measured 60,000 and 77,000 req/s).
    let base: number;
    let ours: number;
    if (round % 2 === 1) {
      base = await baseRun();
      ours = await ourRun();
    } else {
      ours = await ourRun();
      base = await baseRun();
    }
    console.log(
      `api round ${round}: GET /api/v2/users/me  cove ${ours.toFixed(0)} req/s, bare fastify ${base.toFixed(0)} req/s, ratio ${(ours / base).toFixed(2)} (${body.length} bytes, 50 connections, ${seconds}s each)`,
    );
    return ours / base;
  } finally {
    baseline?.kill('SIGTERM');
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function medianMs(command: string, args: readonly string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(command, args, { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

function startupBenchmark(): void {
  const runs = Number(process.env['BENCH_RUNS'] ?? 25);
  // Alternate the two so that both see the same machine state.
  medianMs(process.execPath, ['-e', '0'], 3);
  medianMs(cove, ['--version'], 3);
  const node = medianMs(process.execPath, ['-e', '0'], runs);
  const ours = medianMs(cove, ['--version'], runs);
  const ratio = ours / node;
  console.log(`startup: cove --version ${ours.toFixed(1)} ms, node -e 0 ${node.toFixed(1)} ms (median of ${runs})`);
  console.log(`startup ratio (cove --version / node -e 0): ${ratio.toFixed(2)}  target <= 1.5  ${ratio <= 1.5 ? 'ok' : 'ABOVE TARGET'}`);
  recordFigure({ name: 'startup: bin/cove --version / node -e 0', value: ratio.toFixed(2), target: '<= 1.5', ok: ratio <= 1.5 });
}

async function singleFileBenchmark(): Promise<void> {
  const runs = Number(process.env['BENCH_RUNS'] ?? 25);
  const file = await singleExecutable();
  const size = statSync(file).size;
  // Interleaved, so that both see the same machine state; the first runs also write the caches.
  medianMs(process.execPath, ['-e', '0'], 3);
  medianMs(file, ['--version'], 3);
  const node: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < runs; i++) {
    node.push(medianMs(process.execPath, ['-e', '0'], 1));
    ours.push(medianMs(file, ['--version'], 1));
  }
  const ratio = median(ours) / median(node);
  console.log(
    `single-file: cove --version ${median(ours).toFixed(1)} ms, node -e 0 ${median(node).toFixed(1)} ms (median of ${runs}; ${(size / 1e6).toFixed(1)} MB)`,
  );
  console.log(
    `single-file startup ratio (cove --version / node -e 0): ${ratio.toFixed(2)}  target <= 1.5  ${ratio <= 1.5 ? 'ok' : 'ABOVE TARGET'}`,
  );
  recordFigure({ name: 'single file: cove --version / node -e 0', value: ratio.toFixed(2), target: '<= 1.5', ok: ratio <= 1.5 });
  recordFigure({ name: 'single file: size', value: `${(size / 1e6).toFixed(1)} MB`, target: '< 110 MB', ok: size < 110e6 });
}

const only = new Set(
  (process.env['BENCH_ONLY'] ?? 'startup,api,agents,relay,lists,single-file,cli,logs,builds,scale').split(',').map((name) => name.trim()),
);
if (only.has('startup')) startupBenchmark();
if (only.has('api')) await apiBenchmark();
if (only.has('agents')) await agentsBenchmark();
if (only.has('relay')) await relayBenchmark();
if (only.has('lists')) await listsBenchmark();
if (only.has('single-file')) await singleFileBenchmark();
if (only.has('cli')) await cliBenchmark(cove);
if (only.has('logs')) await logsBenchmark();
if (only.has('builds')) await buildsBenchmark();
if (only.has('scale')) await scaleBenchmark();
printSummary();
