// Lists at scale: the latency of one 25-row page of GET /workspaces (plain, q=owner:me,
// q=status:running), GET /templates and GET /users on `cove serve` with 100, 1,000 and 10,000
// workspaces, templates and users, grown in one run in the same database; the baseline is the
// page at the smallest size. Target: p50 at the largest size / p50 at the smallest <= 2, and the
// largest size's p50 under 50 ms. Runs on SQLite, then on a fresh PostgreSQL database when
// COVE_TEST_PG_URL is set (dropped at the end).
//
// The rows are written straight into the daemon's database by bench/lists-seed.ts (through the
// API, 10,000 workspaces would take far too long); every answer measured is first checked to
// hold the seeded rows (its `count`, its page size, its filter), so an empty or wrong answer fails
// the run instead of looking fast. Beside the latency it prints the daemon's CPU time per request,
// which other load on the machine barely moves. A request slower than the timeout is abandoned and
// reported as TIMEOUT (above target); the next query waits until the daemon is idle again.
//
//   node --import tsx bench/lists.ts
//   BENCH_LIST_SIZES=100,1000,10000 BENCH_LIST_REQUESTS=40 BENCH_LIST_SECONDS=4 BENCH_LIST_TIMEOUT_SECONDS=20
import { recordFigure } from './summary.js';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createTar } from '../src/lib/archive/index.js';
import { systemClock } from '../src/lib/clock.js';
import type { DatabaseTarget } from '../src/store/database.js';
import { Store } from '../src/store/store.js';
import { createBenchOwner, percentile, procSample } from './agents.js';
import { ListSeeder, type SeededCounts } from './lists-seed.js';
import { createScratchDatabase } from './scratch-database.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cove = join(root, 'bin', 'cove');
const PAGE = 25;
const TARGET_RATIO = 2;
const TARGET_MS = 50;

const sizes = (process.env['BENCH_LIST_SIZES'] ?? '100,1000,10000').split(',').map(Number);
/** Most timed requests per query and size; fewer when they are slow (see `budgetMs`). */
const maxRequests = Number(process.env['BENCH_LIST_REQUESTS'] ?? 40);
/** Once this much time went into one query's timed requests, stop after `MIN_REQUESTS`. */
const budgetMs = Number(process.env['BENCH_LIST_SECONDS'] ?? 4) * 1000;
const MIN_REQUESTS = 5;
const timeoutMs = Number(process.env['BENCH_LIST_TIMEOUT_SECONDS'] ?? 20) * 1000;

/** One list request the benchmark times, and how to tell that its answer holds the seeded rows. */
interface ListQuery {
  readonly label: string;
  readonly path: string;
  /** Throws unless the answer is the first page of what was seeded; returns a note, if any. */
  check(body: unknown, expected: SeededCounts, callerId: string): string | undefined;
}

interface WorkspacesAnswer {
  readonly count: number;
  readonly workspaces: readonly { readonly owner_id: string; readonly latest_build: { readonly status: string } }[];
}

function checkPage(label: string, rows: number, count: number, expected: number): void {
  if (count !== expected)
    throw new Error(`${label}: count ${count}, but ${expected} were seeded: the benchmark would measure the wrong rows`);
  if (rows !== Math.min(PAGE, expected)) throw new Error(`${label}: ${rows} rows in the page, expected ${Math.min(PAGE, expected)}`);
}

function workspaceQuery(label: string, q: string | undefined, expected: (counts: SeededCounts) => number): ListQuery {
  return {
    label,
    path: `/api/v2/workspaces?limit=${PAGE}${q ? `&q=${encodeURIComponent(q)}` : ''}`,
    check(body, counts, callerId) {
      const answer = body as WorkspacesAnswer;
      checkPage(label, answer.workspaces.length, answer.count, expected(counts));
      for (const workspace of answer.workspaces) {
        if (q === 'owner:me' && workspace.owner_id !== callerId)
          throw new Error(`${label}: a workspace of ${workspace.owner_id} in the page`);
        if (q === 'status:running' && workspace.latest_build.status !== 'running')
          throw new Error(`${label}: a ${workspace.latest_build.status} workspace in the page`);
      }
      return undefined;
    },
  };
}

const QUERIES: readonly ListQuery[] = [
  workspaceQuery('GET /workspaces', undefined, (c) => c.workspaces),
  workspaceQuery('q=owner:me', 'owner:me', (c) => c.ownedByCaller),
  workspaceQuery('q=status:running', 'status:running', (c) => c.running),
  {
    label: 'GET /templates',
    // The spec gives GET /templates no paging; `limit` asks for a page should the route offer one.
    path: `/api/v2/templates?limit=${PAGE}`,
    check(body, counts) {
      const rows = (body as unknown[]).length;
      if (rows === Math.min(PAGE, counts.templates)) return undefined;
      if (rows === counts.templates) return `GET /templates does not page: ${rows} rows for limit=${PAGE}`;
      throw new Error(`GET /templates: ${rows} rows, but ${counts.templates} templates were seeded`);
    },
  },
  {
    label: 'GET /users',
    path: `/api/v2/users?limit=${PAGE}`,
    check(body, counts) {
      const answer = body as { count: number; users: unknown[] };
      checkPage('GET /users', answer.users.length, answer.count, counts.users);
      return undefined;
    },
  },
];

/** What one query measured at one size. */
interface Measurement {
  readonly latencies: number[];
  /** Daemon CPU (user + system) per timed request: unlike latency, barely moved by other load on the machine. */
  readonly cpuMs: number;
  /** Set when a request took longer than the timeout; the figures are then lower bounds. */
  readonly timedOut: boolean;
}

class TimeoutError extends Error {}

/** One GET with the session, its whole body read; the time is what a client waits. */
async function timedGet(url: string, token: string): Promise<{ ms: number; status: number; text: string }> {
  const started = performance.now();
  try {
    const response = await fetch(url, { headers: { 'Service-Session-Token': token }, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    return { ms: performance.now() - started, status: response.status, text };
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError')
      throw new TimeoutError(`GET ${new URL(url).pathname}${new URL(url).search} took over ${timeoutMs / 1000} s`);
    throw error;
  }
}

/**
 * Sequential requests after a warm-up: the checked first answer, then more until 1 s went into
 * warming up (at most 3). Slow pages get fewer timed requests: at least MIN_REQUESTS within the
 * budget, at least 3 when they are slower still.
 */
async function measure(url: string, token: string, firstMs: number, pid: number): Promise<Measurement> {
  const latencies: number[] = [];
  let cpuBefore: number | undefined;
  const cpuMs = (): number => {
    const after = procSample(pid)?.cpuSeconds;
    return cpuBefore === undefined || after === undefined ? Number.NaN : ((after - cpuBefore) * 1000) / latencies.length;
  };
  try {
    let warm = firstMs;
    for (let i = 0; i < 3 && warm < 1000; i++) warm += (await timedGet(url, token)).ms;
    let spent = 0;
    cpuBefore = procSample(pid)?.cpuSeconds;
    const enough = (): boolean =>
      latencies.length >= maxRequests ||
      (spent >= budgetMs && latencies.length >= MIN_REQUESTS) ||
      (spent >= 2.5 * budgetMs && latencies.length >= 3);
    while (!enough()) {
      const { ms, status } = await timedGet(url, token);
      if (status !== 200) throw new Error(`GET ${url}: HTTP ${status}`);
      latencies.push(ms);
      spent += ms;
    }
    return { latencies: latencies.sort((a, b) => a - b), cpuMs: cpuMs(), timedOut: false };
  } catch (error) {
    if (!(error instanceof TimeoutError)) throw error;
    console.log(`!! lists: ${error.message}; moving on with ${latencies.length} answers`);
    await settle(pid);
    return { latencies: latencies.sort((a, b) => a - b), cpuMs: Number.NaN, timedOut: true };
  }
}

/**
 * After a timeout the daemon is still building the abandoned answer: waits (up to 120 s) until its
 * main thread has slept through two whole seconds, so the next query is not measured against that
 * work. The thread's state (runnable or sleeping) tells even on a machine so loaded that a busy
 * daemon gets little CPU.
 */
async function settle(pid: number): Promise<void> {
  const started = performance.now();
  let quietSeconds = 0;
  while (quietSeconds < 2 && performance.now() - started < 120_000) {
    let running = 0;
    for (let i = 0; i < 20; i++) {
      if (threadState(pid) === 'R') running++;
      await new Promise((r) => setTimeout(r, 50));
    }
    quietSeconds = running <= 1 ? quietSeconds + 1 : 0;
  }
  if (quietSeconds < 2) console.log('!! lists: the daemon is still busy 120 s after a timeout; measuring on');
}

/** The state letter of a process's main thread (R running or runnable, S sleeping, …), from /proc. */
function threadState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

/** A `cove serve` on a fresh data directory, on SQLite or on the given PostgreSQL database. */
async function startDaemon(postgresUrl: string | undefined, logPath: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cove-bench-lists-'));
  const env: NodeJS.ProcessEnv = { ...process.env, COVE_SECRET_STORE: 'file' };
  // Through the environment, so the password stays out of the process list.
  if (postgresUrl) env['COVE_PG_CONNECTION_URL'] = postgresUrl;
  else delete env['COVE_PG_CONNECTION_URL'];
  const args = [
    'serve',
    '--http-address',
    '127.0.0.1:0',
    '--data-dir',
    dataDir,
    '--provisioner-daemons',
    '0',
    '--dangerous-disable-rate-limits',
  ];
  const child = spawn(process.execPath, [cove, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const log = createWriteStream(logPath);
  const problems: string[] = [];
  let pending = '';
  let stopping = false;
  const url = await new Promise<string>((resolvePromise, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log.write(text);
      seen += text;
      const match = /cove is listening url=(\S+)/.exec(seen);
      if (match?.[1]) resolvePromise(match[1]);
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (/^\S+\s+(WARN|ERROR|FATAL)\b/.test(line)) problems.push(line);
    });
    child.once('exit', (code, signal) => {
      if (!stopping) console.log(`!! lists: the daemon exited unexpectedly (code ${code}, signal ${signal}); log ${logPath}`);
      reject(new Error(`the daemon exited with ${code}: ${seen.slice(-2000)}`));
    });
  });
  const target: DatabaseTarget = postgresUrl ? { kind: 'postgres', url: postgresUrl } : { kind: 'sqlite', file: join(dataDir, 'cove.db') };
  return {
    url,
    pid: child.pid ?? 0,
    target,
    problems,
    async stop(): Promise<void> {
      stopping = true;
      process.off('exit', killOnExit);
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await gone;
        clearTimeout(timer);
      }
      log.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(value < 100 ? 1 : 0) : '-');

function cpuCell(m: Measurement | undefined): string {
  return m && !m.timedOut ? ms(m.cpuMs) : '-';
}

function cell(m: Measurement | undefined): string {
  if (!m) return '-';
  const text = `${ms(percentile(m.latencies, 50))} / ${ms(percentile(m.latencies, 95))} n${m.latencies.length}`;
  return m.timedOut ? `${text} TIMEOUT` : text;
}

/** Seeds each size in turn on one daemon and database, measures every query, prints the table and ratios. */
async function benchmarkOn(kind: 'sqlite' | 'postgres', adminUrl: string | undefined): Promise<void> {
  const label = `lists (${kind})`;
  const started = performance.now();
  const scratch = kind === 'postgres' && adminUrl ? await createScratchDatabase(adminUrl) : undefined;
  const postgresUrl = scratch?.url;
  const logPath = join(tmpdir(), `cove-bench-lists-${kind}-${process.pid}.log`);
  let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;
  let store: Store | undefined;
  try {
    daemon = await startDaemon(postgresUrl, logPath);
    const owner = await createBenchOwner(daemon.url);
    const token = owner.token ?? '';
    const caller = JSON.parse((await timedGet(`${daemon.url}/api/v2/users/me`, token)).text) as { id: string; organization_ids: string[] };
    const organizationId = caller.organization_ids[0];
    if (!organizationId) throw new Error('the first user belongs to no organization');
    const file = await owner.uploadFile(await createTar({ 'main.tf': 'resource "docker_container" "dev" {}\n' }));
    store = await Store.open(daemon.target, systemClock);
    const seeder = new ListSeeder(store, { organizationId, callerId: caller.id, fileId: file.id });

    const results = new Map<number, Map<string, Measurement>>();
    const notes = new Set<string>();
    for (const size of sizes) {
      const seedStarted = performance.now();
      const counts = await seeder.growTo(size);
      // A live PostgreSQL has its statistics and visibility map from autovacuum; right after a bulk insert it has neither yet.
      if (kind === 'postgres') await sql`VACUUM ANALYZE`.execute(store.db);
      console.log(
        `${label}: seeded ${size} of each in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s; the lists must show ${counts.users} users, ${counts.templates} templates, ${counts.workspaces} workspaces (${counts.ownedByCaller} owner:me, ${counts.running} status:running)`,
      );
      const row = new Map<string, Measurement>();
      for (const query of QUERIES) {
        // The first answer is checked, not timed: it must hold what was seeded.
        const first = await timedGet(`${daemon.url}${query.path}`, token).catch((error: unknown) => {
          if (!(error instanceof TimeoutError)) throw error;
          console.log(`!! lists: ${error.message}; not measured at ${size}`);
          return undefined;
        });
        if (!first) {
          await settle(daemon.pid);
          row.set(query.label, { latencies: [], cpuMs: Number.NaN, timedOut: true });
          continue;
        }
        if (first.status !== 200) throw new Error(`${label}: ${query.label} at ${size}: HTTP ${first.status}: ${first.text.slice(0, 300)}`);
        const note = query.check(JSON.parse(first.text), counts, caller.id);
        if (note) notes.add(note);
        row.set(query.label, await measure(`${daemon.url}${query.path}`, token, first.ms, daemon.pid));
      }
      results.set(size, row);
    }

    const width = 26;
    console.log(`${label}: p50 / p95 ms of one ${PAGE}-row page, n = timed requests (after a warm-up)`);
    console.log(`${label}  ${'size'.padStart(6)}  ${QUERIES.map((q) => q.label.padEnd(width)).join('')}`);
    for (const size of sizes)
      console.log(
        `${label}  ${String(size).padStart(6)}  ${QUERIES.map((q) => cell(results.get(size)?.get(q.label)).padEnd(width)).join('')}`,
      );
    console.log(`${label}: daemon CPU ms per request (user + system, from /proc)`);
    for (const size of sizes)
      console.log(
        `${label}  ${String(size).padStart(6)}  ${QUERIES.map((q) => cpuCell(results.get(size)?.get(q.label)).padEnd(width)).join('')}`,
      );
    for (const note of notes) console.log(`${label}: note: ${note}`);
    const smallest = sizes[0] as number;
    const largest = sizes.at(-1) as number;
    for (const query of QUERIES) {
      const base = results.get(smallest)?.get(query.label);
      const big = results.get(largest)?.get(query.label);
      const p50Big = big ? percentile(big.latencies, 50) : Number.NaN;
      const ratio = base && big ? p50Big / percentile(base.latencies, 50) : Number.NaN;
      const cpuRatio = base && big && !big.timedOut ? big.cpuMs / base.cpuMs : Number.NaN;
      const timedOut = Boolean(big?.timedOut);
      const ratioOk = !timedOut && ratio <= TARGET_RATIO;
      const msOk = !timedOut && p50Big < TARGET_MS;
      console.log(
        `${label} ratio (${query.label} p50 at ${largest} / at ${smallest}): ${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'}  target <= ${TARGET_RATIO}  ${ratioOk ? 'ok' : 'ABOVE TARGET'};  p50 at ${largest} ${ms(p50Big)} ms  target < ${TARGET_MS} ms  ${msOk ? 'ok' : 'ABOVE TARGET'}${timedOut ? ' (timed out)' : ''};  daemon CPU per request ratio ${Number.isFinite(cpuRatio) ? cpuRatio.toFixed(2) : '-'}`,
      );
      recordFigure({
        name: `${label} ${query.label}: p50 at ${largest} / at ${smallest}`,
        value: Number.isFinite(ratio) ? ratio.toFixed(2) : '-',
        target: `<= ${TARGET_RATIO}`,
        ok: ratioOk,
      });
      recordFigure({
        name: `${label} ${query.label}: p50 at ${largest}`,
        value: `${ms(p50Big)} ms`,
        target: `< ${TARGET_MS} ms`,
        ok: msOk,
      });
    }
    console.log(
      `${label}: daemon log ${daemon.problems.length} WARN/ERROR lines${daemon.problems.length ? `, first: ${daemon.problems.slice(0, 2).join(' | ')}` : ''} (${logPath}); total ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    await store?.close();
    await daemon?.stop();
    await scratch?.drop();
  }
}

export async function listsBenchmark(): Promise<void> {
  if (sizes.length < 2 || sizes.some((size) => !Number.isInteger(size) || size < 1))
    throw new Error(`BENCH_LIST_SIZES must name two or more sizes, smallest first: ${process.env['BENCH_LIST_SIZES']}`);
  await benchmarkOn('sqlite', undefined);
  const pgUrl = process.env['COVE_TEST_PG_URL'];
  if (pgUrl) await benchmarkOn('postgres', pgUrl);
  else console.log('lists (postgres): skipped, COVE_TEST_PG_URL is not set');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await listsBenchmark();
}
