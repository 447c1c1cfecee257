import { Type, type Static } from '@sinclair/typebox';

export const BuildInfo = Type.Object({
  external_url: Type.String(),
  version: Type.String(),
  dashboard_url: Type.String(),
  telemetry: Type.Boolean(),
  workspace_proxy: Type.Boolean(),
  agent_api_version: Type.String(),
  provisioner_api_version: Type.String(),
  upgrade_message: Type.String(),
  deployment_id: Type.String(),
  /** Left out: the deployment sends no web push, and the reference leaves an empty key out. */
  webpush_public_key: Type.Optional(Type.String()),
});
export type BuildInfo = Static<typeof BuildInfo>;

export const UpdateCheck = Type.Object({
  current: Type.Boolean(),
  version: Type.String(),
  url: Type.String(),
});
export type UpdateCheck = Static<typeof UpdateCheck>;

export const SshConfig = Type.Object({
  hostname_prefix: Type.String(),
  hostname_suffix: Type.String(),
  ssh_config_options: Type.Record(Type.String(), Type.String()),
});
export type SshConfig = Static<typeof SshConfig>;

/** A section of settings; the reference leaves out a parent a group does not have, and Cove's groups have none. */
export const OptionGroup = Type.Object({
  name: Type.String(),
  yaml: Type.String(),
  description: Type.String(),
});

/** One server option, its descriptive fields left out when empty as the reference's server does. */
export const DeploymentOption = Type.Object({
  name: Type.String(),
  description: Type.String(),
  required: Type.Optional(Type.Boolean()),
  flag: Type.String(),
  flag_shorthand: Type.Optional(Type.String()),
  env: Type.String(),
  yaml: Type.Optional(Type.String()),
  default: Type.Optional(Type.String()),
  value: Type.Unknown(),
  value_source: Type.String(),
  annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
  group: OptionGroup,
  use_instead: Type.Optional(Type.Array(Type.Unknown())),
  hidden: Type.Optional(Type.Boolean()),
});
export type DeploymentOption = Static<typeof DeploymentOption>;

export const DeploymentConfig = Type.Object({
  config: Type.Record(Type.String(), Type.Unknown()),
  options: Type.Array(DeploymentOption),
});
export type DeploymentConfig = Static<typeof DeploymentConfig>;

export const Experiments = Type.Array(Type.String());
export type Experiments = Static<typeof Experiments>;

/** `GET /experiments/available`: the experiments this build knows, as the reference answers them. */
export const AvailableExperiments = Type.Object({ safe: Experiments });
export type AvailableExperiments = Static<typeof AvailableExperiments>;

export const DeploymentStats = Type.Object({
  aggregated_from: Type.String({ format: 'date-time' }),
  collected_at: Type.String({ format: 'date-time' }),
  next_update_at: Type.String({ format: 'date-time' }),
  session_count: Type.Object({ vscode: Type.Integer(), ssh: Type.Integer(), jetbrains: Type.Integer(), reconnecting_pty: Type.Integer() }),
  workspaces: Type.Object({
    pending: Type.Integer(),
    building: Type.Integer(),
    running: Type.Integer(),
    stopped: Type.Integer(),
    failed: Type.Integer(),
    /** `P50`/`P95`: the reference's Go struct has no JSON tags, so its server sends these names. */
    connection_latency_ms: Type.Object({ P50: Type.Number(), P95: Type.Number() }),
    rx_bytes: Type.Integer(),
    tx_bytes: Type.Integer(),
  }),
});
export type DeploymentStats = Static<typeof DeploymentStats>;
