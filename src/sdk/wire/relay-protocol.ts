import { Type, type Static } from '@sinclair/typebox';

/**
 * Cove's relay: every byte between a client and a workspace agent goes through the daemon over
 * WebSockets. A client asks the daemon for a stream to an agent (`/workspaceagents/{id}/pty`,
 * `/workspaceagents/{id}/coordinate`, `/tailnet`); the daemon asks the agent over its rpc socket to
 * open that stream; the agent dials `/workspaceagents/me/relay?stream_id=…` and the daemon pipes the
 * two sockets together. `docs/relay-protocol.md` describes the conversation.
 */

/** Versions of the relay protocol the daemon speaks on `/coordinate` and `/tailnet`. */
export const RELAY_PROTOCOL_VERSION = '1.0';

/** What a stream reaches inside the workspace. */
export const RelayTarget = Type.Union([
  /** A TCP port on the workspace's loopback interface. */
  Type.Object({ kind: Type.Literal('tcp'), port: Type.Integer({ minimum: 1, maximum: 65535 }) }),
  /** A UDP port on the workspace's loopback interface: each binary frame carries one datagram, both ways. */
  Type.Object({ kind: Type.Literal('udp'), port: Type.Integer({ minimum: 1, maximum: 65535 }) }),
  /** The agent's own SSH server. */
  Type.Object({ kind: Type.Literal('ssh') }),
  /** Echoes what it receives: for `cove ping`. */
  Type.Object({ kind: Type.Literal('echo') }),
  /** Sends or swallows bulk data as the client asks: for `cove speedtest`. */
  Type.Object({ kind: Type.Literal('speedtest') }),
  /** A reconnecting terminal, attached by id. */
  Type.Object({
    kind: Type.Literal('pty'),
    reconnect: Type.String(),
    width: Type.Integer({ minimum: 0, maximum: 65535 }),
    height: Type.Integer({ minimum: 0, maximum: 65535 }),
    command: Type.String(),
    container: Type.String(),
    container_user: Type.String(),
  }),
]);
export type RelayTarget = Static<typeof RelayTarget>;

/** Services a client may name on `/coordinate` and `/tailnet` instead of a port. */
export const RelayService = Type.Union([Type.Literal('ssh'), Type.Literal('echo'), Type.Literal('speedtest')]);
export type RelayService = Static<typeof RelayService>;

/**
 * The speed test's text frames (binary frames carry the bulk data). The client starts one run per
 * stream: `down` has the agent send for `duration_ms` and then say `done` with what it sent; `up`
 * has the client send, the agent report what it has received as `progress` about every 100 ms, and
 * answer the client's `end` with `done` once everything before it has arrived.
 */
export const SpeedtestDirection = Type.Union([Type.Literal('up'), Type.Literal('down')]);
export type SpeedtestDirection = Static<typeof SpeedtestDirection>;

export const SpeedtestClientMessage = Type.Union([
  Type.Object({ type: Type.Literal('start'), direction: SpeedtestDirection, duration_ms: Type.Integer({ minimum: 1 }) }),
  Type.Object({ type: Type.Literal('end') }),
]);
export type SpeedtestClientMessage = Static<typeof SpeedtestClientMessage>;

export const SpeedtestAgentMessage = Type.Union([
  Type.Object({ type: Type.Literal('progress'), bytes: Type.Integer({ minimum: 0 }) }),
  Type.Object({ type: Type.Literal('done'), bytes: Type.Integer({ minimum: 0 }) }),
]);
export type SpeedtestAgentMessage = Static<typeof SpeedtestAgentMessage>;

/** What the daemon sends a client in a text frame once its stream is open; data follows in binary frames. */
export const RelayReady = Type.Object({ type: Type.Literal('ready'), stream_id: Type.String() });
export type RelayReady = Static<typeof RelayReady>;

/** Close codes of relay streams, with the reason as text. */
export const RelayCloseCode = {
  /** The agent could not reach the target (for TCP: nothing listens on the port). */
  targetUnreachable: 4502,
  /** The agent did not open the stream in time. */
  agentTimeout: 4504,
  /** The agent went away while the stream was being opened. */
  agentGone: 4503,
  /** A pty stream ended because its process exited. */
  processExited: 4000,
} as const;

/** Questions the daemon asks an agent over its rpc socket, answered with a `response`. */
export const AgentRequestMethod = Type.Union([
  Type.Literal('listening_ports'),
  Type.Literal('containers'),
  Type.Literal('recreate_devcontainer'),
]);
export type AgentRequestMethod = Static<typeof AgentRequestMethod>;

export const ListeningPort = Type.Object({ process_name: Type.String(), network: Type.String(), port: Type.Integer() });
export type ListeningPort = Static<typeof ListeningPort>;

export const ListeningPortsResponse = Type.Object({ ports: Type.Array(ListeningPort) });
export type ListeningPortsResponse = Static<typeof ListeningPortsResponse>;

export const WorkspaceAgentContainerPort = Type.Object({
  host_ip: Type.String(),
  host_port: Type.Integer(),
  network: Type.String(),
  port: Type.Integer(),
});

export const WorkspaceAgentContainer = Type.Object({
  created_at: Type.String(),
  id: Type.String(),
  image: Type.String(),
  name: Type.String(),
  status: Type.String(),
  labels: Type.Record(Type.String(), Type.String()),
  volumes: Type.Record(Type.String(), Type.String()),
  ports: Type.Array(WorkspaceAgentContainerPort),
  running: Type.Boolean(),
});
export type WorkspaceAgentContainer = Static<typeof WorkspaceAgentContainer>;

export const WorkspaceAgentDevcontainer = Type.Object({
  id: Type.String(),
  name: Type.String(),
  config_path: Type.String(),
  workspace_folder: Type.String(),
  status: Type.String(),
  dirty: Type.Boolean(),
  error: Type.Optional(Type.String()),
  agent: Type.Optional(Type.Object({ directory: Type.String(), id: Type.String(), name: Type.String() })),
  container: Type.Optional(WorkspaceAgentContainer),
});
export type WorkspaceAgentDevcontainer = Static<typeof WorkspaceAgentDevcontainer>;

export const WorkspaceAgentContainersResponse = Type.Object({
  containers: Type.Array(WorkspaceAgentContainer),
  devcontainers: Type.Array(WorkspaceAgentDevcontainer),
  warnings: Type.Array(Type.String()),
});
export type WorkspaceAgentContainersResponse = Static<typeof WorkspaceAgentContainersResponse>;

/**
 * `GET /workspaceagents/{id}/containers`: the agent's answer as users get it, `warnings` left out
 * when there are none, as the reference's server (`omitempty`) leaves it out.
 */
export const WorkspaceAgentListContainersResponse = Type.Object({
  containers: WorkspaceAgentContainersResponse.properties.containers,
  devcontainers: WorkspaceAgentContainersResponse.properties.devcontainers,
  warnings: Type.Optional(WorkspaceAgentContainersResponse.properties.warnings),
});
export type WorkspaceAgentListContainersResponse = Static<typeof WorkspaceAgentListContainersResponse>;

/** The embedded relay region every client is told about: the daemon itself. */
export const RelayNode = Type.Object({
  name: Type.String(),
  regionID: Type.Integer(),
  hostName: Type.String(),
  certName: Type.String(),
  ipv4: Type.String(),
  ipv6: Type.String(),
  stunport: Type.Integer(),
  stunonly: Type.Boolean(),
  derpport: Type.Integer(),
  insecureForTests: Type.Boolean(),
  forceHTTP: Type.Boolean(),
  stuntestIP: Type.String(),
  canPort80: Type.Boolean(),
});

export const RelayRegion = Type.Object({
  embeddedRelay: Type.Boolean(),
  regionID: Type.Integer(),
  regionCode: Type.String(),
  regionName: Type.String(),
  avoid: Type.Boolean(),
  nodes: Type.Array(RelayNode),
});

export const RelayMap = Type.Object({
  homeParams: Type.Object({ regionScore: Type.Record(Type.String(), Type.Number()) }),
  regions: Type.Record(Type.String(), RelayRegion),
  omitDefaultRegions: Type.Boolean(),
});
export type RelayMap = Static<typeof RelayMap>;

export const WorkspaceAgentConnectionInfo = Type.Object({
  derp_map: RelayMap,
  derp_force_websockets: Type.Boolean(),
  disable_direct_connections: Type.Boolean(),
  hostname_suffix: Type.String(),
});
export type WorkspaceAgentConnectionInfo = Static<typeof WorkspaceAgentConnectionInfo>;
