import type { WebSocket } from 'ws';
import { CoveClient } from '../../sdk/client.js';
import type { RelayMap } from '../../sdk/wire/index.js';
import type { CommandSpec } from '../command.js';
import { printJson, printTable } from '../output.js';

/** How many WebSocket pings time a node's round trip. */
const PINGS = 5;
/** How long one connection or ping may take before the node counts as unreachable. */
const TIMEOUT_MS = 10_000;

/** What was measured of one relay node. */
export interface RelayNodeCheck {
  readonly region_id: number;
  readonly region_code: string;
  readonly region_name: string;
  readonly node: string;
  readonly url: string;
  /** TCP (and TLS) connect, WebSocket upgrade and authentication, in milliseconds. */
  readonly connect_ms?: number;
  /** Median round trip of a WebSocket ping over the open connection, in milliseconds. */
  readonly latency_ms?: number;
  readonly error?: string;
}

/** What `cove netcheck` prints with `-o json`. */
export interface NetcheckReport {
  /** Cove relays every connection through the daemon over WebSockets: no UDP, no STUN, no direct paths. */
  readonly udp: false;
  readonly preferred_region_id: number | null;
  readonly regions: readonly RelayNodeCheck[];
}

/** `cove netcheck`: how far the deployment's relay is from here. */
export const netcheckCommand: CommandSpec = {
  name: 'netcheck',
  summary: 'Measure the round trip to the relay regions of the deployment',
  description:
    "Reads the deployment's relay map (GET /api/v2/derp-map) and, for each relay node in it, times a " +
    'WebSocket connection to the node (connect, upgrade and sign-in) and the round trip of WebSocket pings ' +
    'over it. Cove has no UDP paths and no STUN: every connection to a workspace goes through these relays.',
  examples: ['cove netcheck', 'cove netcheck -o json'],
  async run(context) {
    const client = await context.client();
    const first = await timedConnect(client);
    let map: RelayMap;
    try {
      map = await firstFrame(first.socket);
    } finally {
      first.socket.terminate();
    }
    const regions: RelayNodeCheck[] = [];
    for (const region of Object.values(map.regions)) {
      for (const node of region.nodes) {
        if (node.stunonly) continue;
        const url = `${node.forceHTTP ? 'http' : 'https'}://${node.hostName}:${node.derpport}`;
        const base = { region_id: region.regionID, region_code: region.regionCode, region_name: region.regionName, node: node.name, url };
        regions.push({
          ...base,
          ...(await checkNode(new CoveClient({ url, token: client.token, timeoutMs: client.timeoutMs, headers: client.headers }))),
        });
      }
    }
    const reachable = regions.filter((r) => r.latency_ms !== undefined);
    const preferred = reachable.sort((a, b) => (a.latency_ms ?? 0) - (b.latency_ms ?? 0))[0];
    const report: NetcheckReport = { udp: false, preferred_region_id: preferred?.region_id ?? null, regions };
    if (context.json) {
      printJson(context.io, report);
      return 0;
    }
    printTable(context.io, regions, [
      { heading: 'region', value: (r) => `${r.region_id} ${r.region_code}` },
      { heading: 'name', value: (r) => r.region_name },
      { heading: 'node', value: (r) => r.node },
      { heading: 'url', value: (r) => r.url },
      { heading: 'connect', value: (r) => (r.connect_ms === undefined ? '' : `${r.connect_ms.toFixed(1)}ms`) },
      { heading: 'latency', value: (r) => (r.latency_ms === undefined ? (r.error ?? '') : `${r.latency_ms.toFixed(1)}ms`) },
    ]);
    context.say('');
    context.say('UDP: no (every connection is relayed over WebSockets)');
    context.say(`Preferred relay region: ${preferred ? `${preferred.region_id} (${preferred.region_name})` : 'none reachable'}`);
    return regions.some((r) => r.error !== undefined) ? 1 : 0;
  },
};

/** Connects to a node and times it; a node that cannot be reached is reported, not thrown. */
async function checkNode(client: CoveClient): Promise<Pick<RelayNodeCheck, 'connect_ms' | 'latency_ms' | 'error'>> {
  let socket: WebSocket | undefined;
  try {
    const connected = await timedConnect(client);
    socket = connected.socket;
    const times: number[] = [];
    for (let i = 0; i < PINGS; i++) times.push(await pingOnce(connected.socket));
    times.sort((a, b) => a - b);
    return { connect_ms: connected.ms, latency_ms: times[Math.floor(times.length / 2)] ?? 0 };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    socket?.terminate();
  }
}

async function timedConnect(client: CoveClient): Promise<{ readonly socket: WebSocket; readonly ms: number }> {
  const started = process.hrtime.bigint();
  const socket = await withTimeout(client.openSocket('/derp-map'), 'connecting');
  return { socket, ms: elapsedMs(started) };
}

/** The relay map the daemon sends as the first frame of `/derp-map`. */
function firstFrame(socket: WebSocket): Promise<RelayMap> {
  const frame = new Promise<RelayMap>((resolve, reject) => {
    socket.once('message', (data) => {
      try {
        resolve(JSON.parse(String(data)) as RelayMap);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    socket.once('close', () => reject(new Error('the relay map stream closed before sending the map')));
    socket.resume();
  });
  return withTimeout(frame, 'waiting for the relay map');
}

function pingOnce(socket: WebSocket): Promise<number> {
  const started = process.hrtime.bigint();
  const pong = new Promise<number>((resolve, reject) => {
    const onClose = (): void => reject(new Error('the connection closed during a ping'));
    socket.once('pong', () => {
      socket.off('close', onClose);
      resolve(elapsedMs(started));
    });
    socket.once('close', onClose);
    socket.resume();
    socket.ping();
  });
  return withTimeout(pong, 'waiting for a pong');
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out ${what} after ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function elapsedMs(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}
