import { Type, type Static } from '@sinclair/typebox';
import { WorkspaceTransition } from './common.js';
import { SHARE_LEVELS } from './share-levels.js';
import { PlannedAgentMetadata } from './workspace-agent-metadata.js';

/**
 * The job protocol between the daemon and provisioner daemons, built-in and external alike. A
 * provisioner daemon opens a WebSocket to
 * `GET /api/v2/organizations/{organization}/provisionerdaemons/serve` and exchanges the JSON
 * messages below, one per text frame. `docs/provisioner-protocol.md` describes the conversation.
 */

/** The header that carries a provisioner key. */
export const PROVISIONER_KEY_HEADER = 'cove-provisioner-key';

export const NameValue = Type.Object({ name: Type.String(), value: Type.String() });
export type NameValue = Static<typeof NameValue>;

export const LogLevel = Type.Union([
  Type.Literal('trace'),
  Type.Literal('debug'),
  Type.Literal('info'),
  Type.Literal('warn'),
  Type.Literal('error'),
]);
export type LogLevel = Static<typeof LogLevel>;

export const JobType = Type.Union([
  Type.Literal('template_version_import'),
  Type.Literal('workspace_build'),
  Type.Literal('template_version_dry_run'),
]);
export type JobType = Static<typeof JobType>;

/** A log line a provisioner daemon sends; the daemon assigns ids in arrival order. */
export const JobLogInput = Type.Object({
  created_at: Type.String(),
  level: LogLevel,
  source: Type.Union([Type.Literal('provisioner_daemon'), Type.Literal('provisioner')]),
  stage: Type.String({ maxLength: 256 }),
  output: Type.String({ maxLength: 64 * 1024 }),
});
export type JobLogInput = Static<typeof JobLogInput>;

export const TemplateVariable = Type.Object({
  name: Type.String(),
  description: Type.String(),
  type: Type.Union([Type.Literal('string'), Type.Literal('number'), Type.Literal('bool')]),
  default_value: Type.String(),
  required: Type.Boolean(),
  sensitive: Type.Boolean(),
  value: Type.String(),
});
export type TemplateVariable = Static<typeof TemplateVariable>;

export const ParameterOption = Type.Object({
  name: Type.String(),
  description: Type.String(),
  value: Type.String(),
  icon: Type.String(),
});
export type ParameterOption = Static<typeof ParameterOption>;

export const RichParameter = Type.Object({
  name: Type.String(),
  display_name: Type.String(),
  description: Type.String(),
  type: Type.Union([Type.Literal('string'), Type.Literal('number'), Type.Literal('bool'), Type.Literal('list(string)')]),
  form_type: Type.String(),
  mutable: Type.Boolean(),
  ephemeral: Type.Boolean(),
  required: Type.Boolean(),
  default_value: Type.String(),
  icon: Type.String(),
  order: Type.Number(),
  options: Type.Array(ParameterOption),
  validation_min: Type.Union([Type.Number(), Type.Null()]),
  validation_max: Type.Union([Type.Number(), Type.Null()]),
  validation_monotonic: Type.Union([Type.Literal(''), Type.Literal('increasing'), Type.Literal('decreasing')]),
  validation_regex: Type.String(),
  validation_error: Type.String(),
});
export type RichParameter = Static<typeof RichParameter>;

export const PlannedPreset = Type.Object({ name: Type.String(), default: Type.Boolean(), parameters: Type.Array(NameValue) });
export type PlannedPreset = Static<typeof PlannedPreset>;

export const ExternalAuthRequirement = Type.Object({ id: Type.String(), optional: Type.Boolean() });
export type ExternalAuthRequirement = Static<typeof ExternalAuthRequirement>;

export const PlannedScript = Type.Object({
  display_name: Type.String(),
  script: Type.String(),
  cron: Type.String(),
  run_on_start: Type.Boolean(),
  run_on_stop: Type.Boolean(),
  start_blocks_login: Type.Boolean(),
  timeout: Type.Number(),
  log_path: Type.String(),
});

export const ShareLevel = Type.Union(SHARE_LEVELS.map((level) => Type.Literal(level)));
export type ShareLevel = Static<typeof ShareLevel>;

export const PlannedApp = Type.Object({
  slug: Type.String(),
  display_name: Type.String(),
  url: Type.String(),
  command: Type.String(),
  icon: Type.String(),
  external: Type.Boolean(),
  subdomain: Type.Boolean(),
  share: ShareLevel,
  hidden: Type.Boolean(),
  open_in: Type.Union([Type.Literal('slim-window'), Type.Literal('tab')]),
  group: Type.String(),
  healthcheck: Type.Union([Type.Object({ url: Type.String(), interval: Type.Number(), threshold: Type.Number() }), Type.Null()]),
});
export type PlannedApp = Static<typeof PlannedApp>;

export const PlannedAgent = Type.Object({
  name: Type.String(),
  directory: Type.String(),
  env: Type.Record(Type.String(), Type.String()),
  operating_system: Type.String(),
  architecture: Type.String(),
  connection_timeout_seconds: Type.Number(),
  troubleshooting_url: Type.String(),
  display_apps: Type.Array(Type.String()),
  startup_script_behavior: Type.Union([Type.Literal('blocking'), Type.Literal('non-blocking')]),
  auth_token: Type.String(),
  /** The cloud instance the agent runs on, for instance identity authentication; absent means none (''). */
  instance_id: Type.Optional(Type.String()),
  scripts: Type.Array(PlannedScript),
  apps: Type.Array(PlannedApp),
  /** The metadata items the agent collects; absent means none. */
  metadata: Type.Optional(Type.Array(PlannedAgentMetadata)),
});
export type PlannedAgent = Static<typeof PlannedAgent>;

/** A key/value a resource shows; sensitive values are masked by clients. */
export const ResourceMetadata = Type.Object({ key: Type.String(), value: Type.String(), sensitive: Type.Boolean() });
export type ResourceMetadata = Static<typeof ResourceMetadata>;

export const PlannedResource = Type.Object({
  name: Type.String(),
  type: Type.String(),
  hide: Type.Boolean(),
  icon: Type.String(),
  daily_cost: Type.Number(),
  metadata: Type.Array(ResourceMetadata),
  agents: Type.Array(PlannedAgent),
});
export type PlannedResource = Static<typeof PlannedResource>;

/** The workspace a build or dry run is for. */
export const JobWorkspace = Type.Object({
  id: Type.String(),
  name: Type.String(),
  owner: Type.String(),
  owner_id: Type.String(),
  start_count: Type.Number(),
});
export type JobWorkspace = Static<typeof JobWorkspace>;

/** A job handed to a provisioner daemon, with the template archive (a tar, base64). */
export const AcquiredJob = Type.Object({
  job_id: Type.String(),
  type: JobType,
  created_at: Type.String(),
  provisioner: Type.String(),
  initiator_username: Type.String(),
  access_url: Type.String(),
  archive_base64: Type.String(),
  user_variable_values: Type.Array(NameValue),
  /** Builds and dry runs. */
  rich_parameter_values: Type.Array(NameValue),
  workspace: Type.Union([JobWorkspace, Type.Null()]),
  /** Builds only. */
  workspace_build_id: Type.Union([Type.String(), Type.Null()]),
  transition: WorkspaceTransition,
  /** The previous build's provisioner state, base64; null for the first build. */
  previous_state_base64: Type.Union([Type.String(), Type.Null()]),
  log_level: Type.String(),
  /** The job's W3C trace context (`traceparent`, `tracestate`) when the daemon traces, as the reference's `trace_metadata`. */
  trace_metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type AcquiredJob = Static<typeof AcquiredJob>;

export const CompletedImport = Type.Object({
  type: Type.Literal('template_version_import'),
  readme: Type.String(),
  variables: Type.Array(TemplateVariable),
  parameters: Type.Array(RichParameter),
  presets: Type.Array(PlannedPreset),
  external_auth: Type.Array(ExternalAuthRequirement),
  /** The template file's description and icon; absent when it declares none (or from an older daemon). */
  description: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  start_resources: Type.Array(PlannedResource),
  stop_resources: Type.Array(PlannedResource),
});
export type CompletedImport = Static<typeof CompletedImport>;

export const CompletedDryRun = Type.Object({
  type: Type.Literal('template_version_dry_run'),
  resources: Type.Array(PlannedResource),
});
export type CompletedDryRun = Static<typeof CompletedDryRun>;

export const CompletedBuild = Type.Object({
  type: Type.Literal('workspace_build'),
  resources: Type.Array(PlannedResource),
  state_base64: Type.String(),
});
export type CompletedBuild = Static<typeof CompletedBuild>;

export const CompletedJob = Type.Union([CompletedImport, CompletedDryRun, CompletedBuild]);
export type CompletedJob = Static<typeof CompletedJob>;

/** What a provisioner daemon sends. */
export const DaemonMessage = Type.Union([
  /** Asks for the next job; answered with `job` once one is acquired (which may take a while). */
  Type.Object({ type: Type.Literal('acquire') }),
  /** Withdraws an `acquire`; answered with `no_job` unless a `job` is already on its way. */
  Type.Object({ type: Type.Literal('cancel_acquire') }),
  /** Heartbeat and logs of a job it holds; answered with `update_ack`. Send one at least every 10 s. */
  Type.Object({ type: Type.Literal('update'), job_id: Type.String(), logs: Type.Array(JobLogInput, { maxItems: 1000 }) }),
  /**
   * `logs`, the job's last lines, are stored with its end: a short job needs no `update` at all.
   * `acquire`: once it is recorded, go on as `acquire` would: the next job comes after the `ack`,
   * with no `acquire` of its own to wait for.
   */
  Type.Object({
    type: Type.Literal('complete'),
    job_id: Type.String(),
    result: CompletedJob,
    logs: Type.Optional(Type.Array(JobLogInput, { maxItems: 1000 })),
    acquire: Type.Optional(Type.Boolean()),
  }),
  /**
   * The job failed, or stopped because it was canceled (`canceled`). `state_base64` keeps what a
   * failed build did create, so the next build can clean it up. `logs` and `acquire` as for
   * `complete`.
   */
  Type.Object({
    type: Type.Literal('fail'),
    job_id: Type.String(),
    error: Type.String(),
    error_code: Type.Optional(Type.String()),
    canceled: Type.Optional(Type.Boolean()),
    state_base64: Type.Optional(Type.String()),
    logs: Type.Optional(Type.Array(JobLogInput, { maxItems: 1000 })),
    acquire: Type.Optional(Type.Boolean()),
  }),
]);
export type DaemonMessage = Static<typeof DaemonMessage>;

/** What the daemon sends a provisioner daemon. */
export const ServerMessage = Type.Union([
  Type.Object({ type: Type.Literal('job'), job: AcquiredJob }),
  Type.Object({ type: Type.Literal('no_job') }),
  Type.Object({ type: Type.Literal('update_ack'), job_id: Type.String(), canceled: Type.Boolean() }),
  /** A job it holds was canceled: stop it and report `fail` with `canceled: true`. */
  Type.Object({ type: Type.Literal('cancel'), job_id: Type.String() }),
  /** `complete` or `fail` was recorded. */
  Type.Object({ type: Type.Literal('ack'), job_id: Type.String() }),
  /** A message was refused; the connection stays open unless the error is fatal. */
  Type.Object({ type: Type.Literal('error'), message: Type.String(), job_id: Type.Optional(Type.String()) }),
]);
export type ServerMessage = Static<typeof ServerMessage>;
