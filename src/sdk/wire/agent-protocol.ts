import { Type, type Static } from '@sinclair/typebox';
import { PlannedScript } from './provisioner-protocol.js';
import { AgentRequestMethod, RelayTarget } from './relay-protocol.js';
import { AgentLogLevel } from './workspace-agent-logs.js';
import { AgentMetadataReport, PlannedAgentMetadata } from './workspace-agent-metadata.js';

/**
 * The protocol between a workspace agent (`cove agent`) and the daemon. The agent authenticates
 * every request with its token in the `Service-Session-Token` header. It keeps one WebSocket open
 * to `GET /api/v2/workspaceagents/me/rpc` for the manifest, lifecycle, startup facts, stats, app
 * health and metadata results (JSON messages, one per text frame), and sends its logs with
 * `PATCH /api/v2/workspaceagents/me/logs` (the spec's endpoint), in batches.
 * `docs/agent-protocol.md` describes the conversation.
 */

export const LifecycleState = Type.Union(
  ['created', 'starting', 'start_timeout', 'start_error', 'ready', 'shutting_down', 'shutdown_timeout', 'shutdown_error', 'off'].map((s) =>
    Type.Literal(s),
  ),
);
export type LifecycleState = Static<typeof LifecycleState>;

/** A script as the template declared it, with the ids it is known by. */
export const ManifestScript = Type.Composite([Type.Object({ id: Type.String(), log_source_id: Type.String() }), PlannedScript]);
export type ManifestScript = Static<typeof ManifestScript>;

export const ManifestApp = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  url: Type.String(),
  healthcheck: Type.Union([Type.Object({ url: Type.String(), interval: Type.Number(), threshold: Type.Number() }), Type.Null()]),
});
export type ManifestApp = Static<typeof ManifestApp>;

/** What an agent needs to run, sent when it connects. */
export const AgentManifest = Type.Object({
  agent_id: Type.String(),
  agent_name: Type.String(),
  owner_username: Type.String(),
  workspace_id: Type.String(),
  workspace_name: Type.String(),
  directory: Type.String(),
  environment_variables: Type.Record(Type.String(), Type.String()),
  scripts: Type.Array(ManifestScript),
  apps: Type.Array(ManifestApp),
  /** The metadata items to collect and report with `metadata` messages; absent from older daemons. */
  metadata: Type.Optional(Type.Array(PlannedAgentMetadata)),
  /** Seconds between stats reports. */
  stats_interval: Type.Number(),
});
export type AgentManifest = Static<typeof AgentManifest>;

/** What the agent sends over the rpc WebSocket. */
export const AgentMessage = Type.Union([
  /** Once after connecting: what the agent found on its machine. */
  Type.Object({
    type: Type.Literal('startup'),
    version: Type.String(),
    expanded_directory: Type.String(),
    subsystems: Type.Array(Type.String()),
  }),
  /** A lifecycle step, in order; `changed_at` is when it happened on the agent. */
  Type.Object({ type: Type.Literal('lifecycle'), state: LifecycleState, changed_at: Type.String() }),
  /** App health, by app id. */
  Type.Object({
    type: Type.Literal('app_health'),
    apps: Type.Record(Type.String(), Type.Union([Type.Literal('initializing'), Type.Literal('healthy'), Type.Literal('unhealthy')])),
  }),
  /** Counters since the previous report (bytes), and current sessions by kind (gauges). */
  Type.Object({
    type: Type.Literal('stats'),
    rx_bytes: Type.Number(),
    tx_bytes: Type.Number(),
    session_count_ssh: Type.Number(),
    session_count_reconnecting_pty: Type.Number(),
    session_count_vscode: Type.Number(),
    session_count_jetbrains: Type.Number(),
    connection_median_latency_ms: Type.Number(),
  }),
  /** A script finished: for build timings. */
  Type.Object({
    type: Type.Literal('script_completed'),
    script_id: Type.String(),
    started_at: Type.String(),
    ended_at: Type.String(),
    exit_code: Type.Number(),
    stage: Type.Union([Type.Literal('start'), Type.Literal('stop'), Type.Literal('cron')]),
    status: Type.Union([Type.Literal('ok'), Type.Literal('exit_failure'), Type.Literal('timed_out'), Type.Literal('pipes_left_open')]),
  }),
  /** A session carried by a relay stream (an SSH exec or shell) exited with this status: for the connection log. */
  Type.Object({ type: Type.Literal('stream_exit'), stream_id: Type.String(), exit_code: Type.Integer() }),
  /** The latest runs of metadata items, at most one per key: the daemon keeps the latest of each. */
  Type.Object({ type: Type.Literal('metadata'), results: Type.Array(AgentMetadataReport, { maxItems: 256 }) }),
  /** The answer to a daemon's `request`: a result, or an error with an HTTP status for the user. */
  Type.Object({
    type: Type.Literal('response'),
    request_id: Type.String(),
    result: Type.Optional(Type.Unknown()),
    error: Type.Optional(
      Type.Object({ status: Type.Integer({ minimum: 400, maximum: 599 }), message: Type.String(), detail: Type.String() }),
    ),
  }),
]);
export type AgentMessage = Static<typeof AgentMessage>;

/** What the daemon sends the agent over the rpc WebSocket. */
export const DaemonToAgentMessage = Type.Union([
  Type.Object({ type: Type.Literal('manifest'), manifest: AgentManifest }),
  /** A message was refused; the connection stays open. */
  Type.Object({ type: Type.Literal('error'), message: Type.String() }),
  /** Open a relay stream: dial `/workspaceagents/me/relay?stream_id=…` and connect it to `target`. */
  Type.Object({ type: Type.Literal('open_stream'), stream_id: Type.String(), target: RelayTarget }),
  /** A question about the workspace (listening ports, containers), answered with a `response`. */
  Type.Object({
    type: Type.Literal('request'),
    request_id: Type.String(),
    method: AgentRequestMethod,
    params: Type.Record(Type.String(), Type.String()),
  }),
]);
export type DaemonToAgentMessage = Static<typeof DaemonToAgentMessage>;

/** One log line an agent sends. */
export const AgentLogInput = Type.Object({
  created_at: Type.String(),
  level: AgentLogLevel,
  output: Type.String(),
});
export type AgentLogInput = Static<typeof AgentLogInput>;

/** The body of `PATCH /workspaceagents/me/logs`. */
export const PatchAgentLogsRequest = Type.Object({
  log_source_id: Type.String(),
  logs: Type.Array(AgentLogInput),
});
export type PatchAgentLogsRequest = Static<typeof PatchAgentLogsRequest>;

/** The body of `POST /workspaceagents/me/log-source`. */
export const PostLogSourceRequest = Type.Object({
  id: Type.String(),
  display_name: Type.String(),
  icon: Type.String(),
});
export type PostLogSourceRequest = Static<typeof PostLogSourceRequest>;
