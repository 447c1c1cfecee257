import { relayMap } from '../../domain/relay-map.js';
import type { HealthMessage, HealthRelayRegion, Netcheck, RelayMap, RelayNodeReport, RelayReport } from '../../sdk/wire/index.js';
import { goDuration, verdict } from './health-severity.js';
import { dialProbe, nextMessage, roundTrip } from './probe-socket.js';
import type { RelayProbeAgent } from './relay-probe.js';

const TIMEOUT_MS = 10_000;

/**
 * Checks the one relay region, the daemon itself, by sending a message through it: a client
 * socket to `/api/v2/debug/relay-probe` is joined by the relay to a stand-in agent that echoes.
 * The node reports the round trip of one message once the stream is open. It is truthful about
 * what the relay is: WebSockets only (`uses_websocket`), no STUN; neither is a warning here,
 * since there is nothing else to fall back from.
 */
export async function checkRelay(accessUrl: string, probeKey: string, agent: RelayProbeAgent): Promise<RelayReport> {
  const map = relayMap(accessUrl);
  const [regionId, region] = Object.entries(map.regions)[0] ?? [];
  if (!regionId || !region) throw new Error('the relay map has no region');
  const node = region.nodes[0];
  if (!node) throw new Error('the relay region has no node');
  const clientLogs: string[] = [];
  const clientErrs: string[] = [];
  let roundTripMs = 0;
  let problem: HealthMessage | undefined;
  const detach = agent.attach();
  try {
    const url = `${accessUrl}/api/v2/debug/relay-probe`;
    const socket = await dialProbe(url, probeKey, TIMEOUT_MS);
    clientLogs.push(`connected to ${url}`);
    try {
      const ready = await nextMessage(socket, TIMEOUT_MS).catch((error: unknown) => {
        throw new Error(`the relay did not open the stream: ${(error as Error).message}`);
      });
      if (!ready.includes('"ready"')) throw new Error(`the relay began the stream with ${ready.slice(0, 64)}`);
      clientLogs.push('stream open');
      const payload = `probe ${Date.now()}`;
      const started = process.hrtime.bigint();
      const echoed = await roundTrip(socket, Buffer.from(payload), TIMEOUT_MS);
      roundTripMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (echoed !== payload) throw new Error(`sent "${payload}" through the relay and got "${echoed.slice(0, 64)}" back`);
      clientLogs.push(`message echoed in ${goDuration(roundTripMs)}`);
    } finally {
      socket.close(1000);
    }
  } catch (error) {
    clientErrs.push((error as Error).message);
    problem = { code: 'EUNKNOWN', message: `No message crossed the relay: ${(error as Error).message}.` };
  } finally {
    detach();
  }
  const exchanged = problem === undefined;
  const nodeVerdict = verdict({ error: problem });
  const nodeReport: RelayNodeReport = {
    healthy: nodeVerdict.healthy,
    severity: nodeVerdict.severity,
    warnings: nodeVerdict.warnings,
    ...(nodeVerdict.error === undefined ? {} : { error: nodeVerdict.error }),
    node: reportedNode(node),
    node_info: { TokenBucketBytesPerSecond: 0, TokenBucketBytesBurst: 0 },
    can_exchange_messages: exchanged,
    round_trip_ping: exchanged ? goDuration(roundTripMs) : '',
    round_trip_ping_ms: exchanged ? Math.round(roundTripMs) : 0,
    uses_websocket: true,
    client_logs: [clientLogs, [...agent.logs]],
    client_errs: [clientErrs, [...agent.errors]],
    stun: { Enabled: false, CanSTUN: false, Error: null },
  };
  const regionVerdict = verdict({ error: problem });
  return {
    ...regionVerdict,
    regions: {
      [regionId]: {
        healthy: regionVerdict.healthy,
        severity: regionVerdict.severity,
        warnings: regionVerdict.warnings,
        ...(regionVerdict.error === undefined ? {} : { error: regionVerdict.error }),
        region: reportedRegion(region),
        node_reports: [nodeReport],
      },
    },
    netcheck: netcheck(Number(regionId), exchanged ? roundTripMs : undefined),
    netcheck_logs: ['relay over WebSockets only: no UDP, no STUN, no direct connections'],
  };
}

type MapRegion = RelayMap['regions'][string];

/**
 * The map's region in the report's names: the reference's report holds Tailscale's own region and
 * node types, which marshal under their Go names and leave out their `omitempty` fields when empty.
 */
function reportedRegion(region: MapRegion): HealthRelayRegion {
  return {
    EmbeddedRelay: region.embeddedRelay,
    RegionID: region.regionID,
    RegionCode: region.regionCode,
    RegionName: region.regionName,
    ...(region.avoid ? { Avoid: true } : {}),
    Nodes: region.nodes.map(reportedNode),
  };
}

function reportedNode(node: MapRegion['nodes'][number]): HealthRelayRegion['Nodes'][number] {
  const unlessEmpty = <K extends string, V>(key: K, value: V) =>
    (value === '' || value === 0 || value === false ? {} : { [key]: value }) as Partial<Record<K, V>>;
  return {
    Name: node.name,
    RegionID: node.regionID,
    HostName: node.hostName,
    ...unlessEmpty('CertName', node.certName),
    ...unlessEmpty('IPv4', node.ipv4),
    ...unlessEmpty('IPv6', node.ipv6),
    ...unlessEmpty('STUNPort', node.stunport),
    ...unlessEmpty('STUNOnly', node.stunonly),
    ...unlessEmpty('DERPPort', node.derpport),
    ...unlessEmpty('InsecureForTests', node.insecureForTests),
    ...unlessEmpty('ForceHTTP', node.forceHTTP),
    ...unlessEmpty('STUNTestIP', node.stuntestIP),
    ...unlessEmpty('CanPort80', node.canPort80),
  };
}

/** The network check a WebSocket-only relay can give: no UDP or STUN results, the relay's latency in nanoseconds. */
function netcheck(regionId: number, latencyMs: number | undefined): Netcheck {
  const latency = latencyMs === undefined ? {} : { [String(regionId)]: Math.round(latencyMs * 1e6) };
  return {
    UDP: false,
    IPv4: false,
    IPv6: false,
    IPv4CanSend: false,
    IPv6CanSend: false,
    OSHasIPv6: false,
    ICMPv4: false,
    MappingVariesByDestIP: null,
    HairPinning: null,
    UPnP: null,
    PMP: null,
    PCP: null,
    PreferredDERP: latencyMs === undefined ? 0 : regionId,
    RegionLatency: latency,
    RegionV4Latency: {},
    RegionV6Latency: {},
    GlobalV4: '',
    GlobalV6: '',
    CaptivePortal: null,
  };
}
