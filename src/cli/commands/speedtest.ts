import type { WebSocket } from 'ws';
import { openAgentSocket } from '../../sdk/agent-streams.js';
import type { SpeedtestAgentMessage, SpeedtestClientMessage, SpeedtestDirection } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { readDurationFlag } from '../duration-flag.js';
import { printJson, printTable } from '../output.js';
import { resolveWorkspaceAgent } from '../workspace-agent-ref.js';

/** Size of one data frame the CLI sends. */
const CHUNK_BYTES = 64 * 1024;
/** Frames handed to the socket and not yet written out. */
const FRAMES_IN_FLIGHT = 16;
/** The length of one reported interval. */
const INTERVAL_MS = 1000;
/** How long after its duration a run may take to finish before it counts as stuck. */
const GRACE_MS = 30_000;

/** Throughput over one span of a run, seconds counted from its start. */
export interface ThroughputInterval {
  readonly start_time_seconds: number;
  readonly end_time_seconds: number;
  readonly throughput_mbits: number;
}

/** One direction's result, as `-o json` prints it. */
export interface SpeedtestRun {
  readonly direction: SpeedtestDirection;
  readonly bytes: number;
  readonly overall: ThroughputInterval;
  readonly intervals: readonly ThroughputInterval[];
}

/** When the receiving side had seen how many bytes, in milliseconds from the start of the run. */
type Sample = readonly [ms: number, bytes: number];

/** `cove speedtest`: bulk throughput to a workspace agent through the relay. */
export const speedtestCommand: CommandSpec = {
  name: 'speedtest',
  summary: 'Measure the throughput to a workspace agent through the relay',
  description:
    'Sends bulk data between here and the workspace agent through the deployment relay for a while and prints ' +
    'the throughput of each second and of the whole run. "down" is from the agent to here, "up" from here to ' +
    'the agent; each direction is measured where the data arrives.',
  arguments: [{ name: 'workspace', description: 'WORKSPACE, OWNER/WORKSPACE, or either followed by .AGENT', required: true }],
  options: [
    { flags: '--direction <direction>', description: 'up, down or both', default: 'down' },
    { flags: '-t, --time <duration>', description: 'How long each direction runs, e.g. 5s or 500ms', default: '5s' },
  ],
  examples: ['cove speedtest dev', 'cove speedtest dev --direction both -t 10s', 'cove speedtest alice/dev.main --direction up -o json'],
  async run(context, [workspaceText = ''], options) {
    const directionText = String(options['direction']);
    if (!['up', 'down', 'both'].includes(directionText))
      throw new CliError(`--direction "${directionText}" is not up, down or both.`, { hint: 'For example --direction both.' });
    const durationMs = readDurationFlag(String(options['time']), '-t');
    if (durationMs === undefined || durationMs <= 0)
      throw new CliError(`-t "${String(options['time'])}" is not a duration.`, { hint: 'For example -t 5s or -t 500ms.' });
    const directions: SpeedtestDirection[] = directionText === 'both' ? ['down', 'up'] : [directionText as SpeedtestDirection];
    const client = await context.client();
    const { agent, label } = await resolveWorkspaceAgent(client, workspaceText, { io: context.io });
    const runs: SpeedtestRun[] = [];
    for (const direction of directions) {
      context.say(`Measuring ${direction === 'down' ? 'download from' : 'upload to'} ${label}.${agent.name} for ${durationMs / 1000} s...`);
      const socket = await openAgentSocket(client, agent.id, { service: 'speedtest' });
      let samples: Sample[];
      try {
        samples = await measure(socket, direction, Math.round(durationMs));
      } finally {
        socket.terminate();
      }
      const run = summarize(direction, samples);
      runs.push(run);
      if (!context.json) {
        printTable(
          context.io,
          [...run.intervals, run.overall],
          [
            { heading: 'interval', value: (i) => `${i.start_time_seconds.toFixed(2)}-${i.end_time_seconds.toFixed(2)} sec` },
            { heading: 'throughput', value: (i) => `${i.throughput_mbits.toFixed(2)} Mbits/sec${i === run.overall ? ' (total)' : ''}` },
          ],
        );
      }
    }
    if (context.json) printJson(context.io, { workspace: label, agent: agent.name, results: runs });
    return 0;
  },
};

/** Runs one direction on an open speedtest stream; resolves with the receiving side's samples. */
function measure(socket: WebSocket, direction: SpeedtestDirection, durationMs: number): Promise<Sample[]> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const now = (): number => Number(process.hrtime.bigint() - started) / 1e6;
    const samples: Sample[] = [[0, 0]];
    let received = 0;
    const stuck = setTimeout(
      () => fail(new CliError('The speed test did not finish: the agent stopped answering.')),
      durationMs + GRACE_MS,
    );
    const fail = (error: Error): void => {
      clearTimeout(stuck);
      reject(error);
    };
    socket.on('message', (data, isBinary) => {
      if (isBinary) {
        received += (data as Buffer).length;
        samples.push([now(), received]);
        return;
      }
      let message: SpeedtestAgentMessage;
      try {
        message = JSON.parse(String(data)) as SpeedtestAgentMessage;
      } catch {
        fail(new CliError('The agent answered the speed test with something that is not JSON.'));
        return;
      }
      // Uploads are counted where they arrive: the agent's reports; downloads here.
      samples.push([now(), direction === 'up' ? message.bytes : received]);
      if (message.type === 'done') {
        clearTimeout(stuck);
        resolve(samples);
      }
    });
    socket.once('close', (code, reason) =>
      fail(new CliError(`The agent closed the speed test (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''}).`)),
    );
    socket.on('error', fail);
    const send = (message: SpeedtestClientMessage): void => socket.send(JSON.stringify(message));
    send({ type: 'start', direction, duration_ms: durationMs });
    socket.resume();
    if (direction === 'up') upload(socket, durationMs, () => send({ type: 'end' }));
  });
}

/** Sends data frames as fast as the relay takes them for `durationMs`, then calls `done`. */
function upload(socket: WebSocket, durationMs: number, done: () => void): void {
  const chunk = Buffer.alloc(CHUNK_BYTES, 0x5a);
  const deadline = Date.now() + durationMs;
  let inFlight = 0;
  let ended = false;
  const pump = (): void => {
    if (ended || socket.readyState !== socket.OPEN) return;
    while (inFlight < FRAMES_IN_FLIGHT && Date.now() < deadline) {
      inFlight++;
      socket.send(chunk, { binary: true }, () => {
        inFlight--;
        pump();
      });
    }
    if (Date.now() >= deadline && inFlight === 0) {
      ended = true;
      done();
    }
  };
  setTimeout(pump, durationMs + 1).unref();
  pump();
}

/** Per-second and overall throughput from the receiving side's samples. */
export function summarize(direction: SpeedtestDirection, samples: readonly Sample[]): SpeedtestRun {
  const last = samples.at(-1) ?? [0, 0];
  const [endMs, bytes] = last;
  const bytesAt = (ms: number): number => {
    let value = 0;
    for (const [at, count] of samples) {
      if (at > ms) break;
      value = count;
    }
    return value;
  };
  const span = (fromMs: number, toMs: number): ThroughputInterval => ({
    start_time_seconds: fromMs / 1000,
    end_time_seconds: toMs / 1000,
    throughput_mbits: toMs > fromMs ? ((bytesAt(toMs) - bytesAt(fromMs)) * 8) / 1e6 / ((toMs - fromMs) / 1000) : 0,
  });
  // A last sliver (the run's final frames arriving just after a whole second) joins the interval before it.
  const boundaries: number[] = [0];
  for (let at = INTERVAL_MS; at < endMs; at += INTERVAL_MS) boundaries.push(at);
  if (boundaries.length > 1 && endMs - (boundaries.at(-1) ?? 0) < INTERVAL_MS / 5) boundaries.pop();
  boundaries.push(endMs);
  const intervals = boundaries.slice(1).map((to, i) => span(boundaries[i] ?? 0, to));
  return { direction, bytes, overall: span(0, endMs), intervals };
}
