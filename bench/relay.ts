// One TCP stream through the relay: client (this process) -> daemon (`bin/cove serve`) -> agent
// (`bin/cove agent`, its own process) -> a TCP sink on loopback (a child process), against the
// same bytes copied straight to the sink over loopback, measured in the same run. Also the round
// trip of small messages through the relay (as `cove ping` sees it) against direct loopback.
//
//   node --import tsx bench/relay.ts
//   BENCH_RELAY_MIB=256 BENCH_RELAY_RUNS=3 BENCH_RELAY_PINGS=1000
import { recordFigure } from './summary.js';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { openAgentStream } from '../src/sdk/agent-streams.js';
import type { CoveClient } from '../src/sdk/client.js';
import { createBenchOwner, createBenchWorkspace, importEchoVersion, percentile, procSample, startBenchDaemon } from './agents.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cove = join(root, 'bin', 'cove');
const TOKEN = `bench-relay-agent-${process.pid}-${Date.now()}`;
const CHUNK = 64 * 1024;
const PING_BYTES = 64;

// ---------------------------------------------------------------------------------------------
// The TCP servers "inside the workspace" (child process).

/**
 * A sink, which reads an 8-byte length, then that many bytes, and answers one byte; and an echo
 * server. Prints `{sink, echo}` ports to the parent over IPC.
 */
async function servers(): Promise<void> {
  const sink = createServer((socket) => {
    let expected = -1;
    let seen = 0;
    let header = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      if (expected < 0) {
        header = Buffer.concat([header, data]);
        if (header.length < 8) return;
        expected = Number(header.readBigUInt64BE(0));
        seen = header.length - 8;
      } else seen += data.length;
      if (expected >= 0 && seen >= expected) {
        socket.write('k');
        expected = -1;
        seen = 0;
        header = Buffer.alloc(0);
      }
    });
    socket.on('error', () => undefined);
  });
  const echo = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (data) => socket.write(data));
    socket.on('error', () => undefined);
  });
  await Promise.all([new Promise<void>((r) => sink.listen(0, '127.0.0.1', r)), new Promise<void>((r) => echo.listen(0, '127.0.0.1', r))]);
  process.send?.({ sink: (sink.address() as AddressInfo).port, echo: (echo.address() as AddressInfo).port });
  process.on('disconnect', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------
// The benchmark.

/** Sends `bytes` to the sink and waits for its answer; returns milliseconds. */
async function transfer(stream: Duplex, bytes: number): Promise<number> {
  const chunk = Buffer.alloc(CHUNK, 0x5a);
  const header = Buffer.alloc(8);
  header.writeBigUInt64BE(BigInt(bytes));
  const answered = new Promise<void>((resolvePromise, reject) => {
    stream.once('data', () => resolvePromise());
    stream.once('error', reject);
    stream.once('close', () => reject(new Error('the stream closed before the sink answered')));
  });
  const started = performance.now();
  stream.write(header);
  for (let sent = 0; sent < bytes;) {
    const n = Math.min(CHUNK, bytes - sent);
    sent += n;
    if (!stream.write(n === CHUNK ? chunk : chunk.subarray(0, n))) await once(stream, 'drain');
  }
  await answered;
  return performance.now() - started;
}

/** `count` round trips of a small message through an echo; returns each in milliseconds. */
async function roundTrips(stream: Duplex, count: number): Promise<number[]> {
  const message = Buffer.alloc(PING_BYTES, 0x61);
  const times: number[] = [];
  let waiting: (() => void) | undefined;
  let got = 0;
  const onData = (data: Buffer): void => {
    got += data.length;
    if (got >= PING_BYTES && waiting) {
      got -= PING_BYTES;
      const done = waiting;
      waiting = undefined;
      done();
    }
  };
  stream.on('data', onData);
  for (let i = 0; i < count; i++) {
    const back = new Promise<void>((r) => (waiting = r));
    const started = performance.now();
    stream.write(message);
    await back;
    times.push(performance.now() - started);
  }
  stream.off('data', onData);
  return times.sort((a, b) => a - b);
}

async function direct(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await once(socket, 'connect');
  return socket;
}

async function relayed(client: CoveClient, agentId: string, port: number): Promise<{ stream: Duplex; close(): void }> {
  const { socket, stream } = await openAgentStream(client, agentId, { port });
  return {
    stream,
    close() {
      stream.destroy();
      socket.close();
    },
  };
}

const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const mbps = (bytes: number, ms: number): number => bytes / 1e6 / (ms / 1000);

export async function relayBenchmark(): Promise<void> {
  const megabytes = Number(process.env['BENCH_RELAY_MIB'] ?? 256);
  const runs = Number(process.env['BENCH_RELAY_RUNS'] ?? 3);
  const pings = Number(process.env['BENCH_RELAY_PINGS'] ?? 1000);
  const bytes = megabytes * 1024 * 1024;
  const benchStarted = performance.now();
  const logPath = join(tmpdir(), `cove-bench-relay-${process.pid}.log`);
  const daemon = await startBenchDaemon(1, logPath);
  const home = mkdtempSync(join(tmpdir(), 'cove-bench-home-'));
  let agent: ChildProcess | undefined;
  let targets: ChildProcess | undefined;
  const agentProblems: string[] = [];
  try {
    const owner = await createBenchOwner(daemon.url);
    const version = await importEchoVersion(owner, {
      apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: TOKEN, directory: '' }] }] },
    });
    const template = await owner.createTemplate('default', { name: 'relay', template_version_id: version });
    const [found] = await createBenchWorkspace(owner, 'relay', { template_id: template.id });
    if (!found) throw new Error('the build made no agent');
    const agentId = found.id;

    agent = spawn(process.execPath, [cove, 'agent'], {
      env: { PATH: process.env['PATH'] ?? '', HOME: home, SHELL: '/bin/sh', COVE_AGENT_URL: daemon.url, COVE_AGENT_TOKEN: TOKEN },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    agent.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n'))
        if (/\b(WARN|ERROR|FATAL|warn|error)\b/.test(line) && agentProblems.length < 20) agentProblems.push(line.trim());
    });
    const agentPid = agent.pid ?? 0;
    const agentProcess = agent;
    process.once('exit', () => void agentProcess.kill('SIGKILL'));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const state = await owner.workspaceAgent(agentId);
      if (state.status === 'connected' && state.lifecycle_state === 'ready') break;
      if (agent.exitCode !== null) throw new Error(`the agent exited with ${agent.exitCode}: ${agentProblems.join(' | ')}`);
      if (Date.now() > deadline) throw new Error(`the agent did not connect: ${state.status}, ${state.lifecycle_state}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    targets = fork(fileURLToPath(import.meta.url), ['--servers'], {
      cwd: root,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const [ports] = (await once(targets, 'message')) as [{ sink: number; echo: number }];

    // Warm-up: both paths, a few MiB each.
    const warmDirect = await direct(ports.sink);
    await transfer(warmDirect, 16 * 1024 * 1024);
    warmDirect.destroy();
    const warmRelay = await relayed(owner, agentId, ports.sink);
    await transfer(warmRelay.stream, 16 * 1024 * 1024);
    warmRelay.close();

    const directMs: number[] = [];
    const relayMs: number[] = [];
    let daemonCpu = 0;
    let agentCpu = 0;
    let clientCpu = 0;
    for (let run = 0; run < runs; run++) {
      const socket = await direct(ports.sink);
      directMs.push(await transfer(socket, bytes));
      socket.destroy();

      const relay = await relayed(owner, agentId, ports.sink);
      const d0 = procSample(daemon.pid);
      const a0 = procSample(agentPid);
      const c0 = process.cpuUsage();
      relayMs.push(await transfer(relay.stream, bytes));
      const d1 = procSample(daemon.pid);
      const a1 = procSample(agentPid);
      const c1 = process.cpuUsage(c0);
      clientCpu += (c1.user + c1.system) / 1e6;
      daemonCpu += (d1?.cpuSeconds ?? Number.NaN) - (d0?.cpuSeconds ?? Number.NaN);
      agentCpu += (a1?.cpuSeconds ?? Number.NaN) - (a0?.cpuSeconds ?? Number.NaN);
      relay.close();
    }
    const directRate = mbps(bytes, median(directMs));
    const relayRate = mbps(bytes, median(relayMs));
    const gib = (bytes * runs) / 1024 ** 3;
    const rates = (list: number[]): string => list.map((ms) => mbps(bytes, ms).toFixed(0)).join(', ');
    console.log(
      `relay: ${megabytes} MiB, median of ${runs}: through the relay ${relayRate.toFixed(0)} MB/s (${rates(relayMs)}), direct loopback ${directRate.toFixed(0)} MB/s (${rates(directMs)})`,
    );
    console.log(
      `relay: CPU per GiB relayed: daemon ${(daemonCpu / gib).toFixed(2)} s, agent ${(agentCpu / gib).toFixed(2)} s, this client ${(clientCpu / gib).toFixed(2)} s (seconds of relaying per GiB: ${(relayMs.reduce((a, b) => a + b, 0) / 1000 / gib).toFixed(2)})`,
    );
    console.log(
      `relay throughput ratio (relay / direct): ${relayRate / directRate < 0.01 ? (relayRate / directRate).toFixed(4) : (relayRate / directRate).toFixed(3)}`,
    );
    recordFigure({ name: 'relay: throughput relay / direct', value: (relayRate / directRate).toFixed(3), target: '-', ok: undefined });

    // Small messages: round trips through the relay and straight to the echo server.
    const echoDirect = await direct(ports.echo);
    await roundTrips(echoDirect, 100);
    const directTimes = await roundTrips(echoDirect, pings);
    echoDirect.destroy();
    const echoRelay = await relayed(owner, agentId, ports.echo);
    await roundTrips(echoRelay.stream, 100);
    const relayTimes = await roundTrips(echoRelay.stream, pings);
    echoRelay.close();
    const fmt = (t: number[]): string =>
      `p50 ${percentile(t, 50).toFixed(3)} ms, p95 ${percentile(t, 95).toFixed(3)} ms, max ${(t.at(-1) ?? Number.NaN).toFixed(2)} ms`;
    console.log(`relay: ${pings} round trips of ${PING_BYTES} bytes: through the relay ${fmt(relayTimes)}; direct ${fmt(directTimes)}`);
    console.log(`relay round-trip ratio (p50 relay / direct): ${(percentile(relayTimes, 50) / percentile(directTimes, 50)).toFixed(1)}`);
    recordFigure({
      name: 'relay: round trip p50 relay / direct',
      value: (percentile(relayTimes, 50) / percentile(directTimes, 50)).toFixed(1),
      target: '-',
      ok: undefined,
    });

    // Opening a stream (what every `cove ssh`, port-forward connection and ping pays first).
    const opens: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      const relay = await relayed(owner, agentId, ports.echo);
      opens.push(performance.now() - started);
      relay.close();
    }
    opens.sort((a, b) => a - b);
    console.log(
      `relay: opening a stream (coordinate + agent dial-back + ready), 50 times: p50 ${percentile(opens, 50).toFixed(1)} ms, p95 ${percentile(opens, 95).toFixed(1)} ms`,
    );

    const rss = procSample(daemon.pid);
    const problems = daemon.problems;
    console.log(
      `relay: daemon RSS at the end ${rss ? (rss.rssBytes / 1024 / 1024).toFixed(0) : '?'} MiB; daemon log ${problems.length} WARN/ERROR lines${problems.length ? `, first: ${problems.slice(0, 3).join(' | ')}` : ''}; agent log ${agentProblems.length} warn/error lines${agentProblems.length ? `, first: ${agentProblems.slice(0, 3).join(' | ')}` : ''}; total ${((performance.now() - benchStarted) / 1000).toFixed(0)} s`,
    );
  } catch (error) {
    if (daemon.exited) console.log(`relay: THE DAEMON EXITED (code ${daemon.exited.code}, signal ${daemon.exited.signal}); log ${logPath}`);
    throw error;
  } finally {
    targets?.disconnect();
    if (agent && agent.exitCode === null) {
      const gone = once(agent, 'exit');
      agent.kill('SIGTERM');
      const timer = setTimeout(() => agent?.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    }
    await daemon.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv.includes('--servers')) {
  await servers();
} else if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await relayBenchmark();
}
