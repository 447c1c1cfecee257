import { Type, type Static } from '@sinclair/typebox';
import { DateTime, DurationMs, Nullable, Uuid, WorkspaceTransition } from './common.js';
import { NameValue, ResourceMetadata, ShareLevel } from './provisioner-protocol.js';
import { WorkspaceAppStatus } from './workspace-agent-extras.js';

/** Wire shapes of templates, template versions, provisioner jobs and their logs and resources. */

export const ProvisionerJobStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('running'),
  Type.Literal('succeeded'),
  Type.Literal('canceling'),
  Type.Literal('canceled'),
  Type.Literal('failed'),
]);
export type ProvisionerJobStatus = Static<typeof ProvisionerJobStatus>;

/**
 * A provisioner job. Fields the reference's server leaves out when they have no value (`omitempty`
 * on a pointer or string) are left out here too, rather than sent as null.
 */
export const ProvisionerJob = Type.Object({
  id: Uuid,
  created_at: DateTime,
  started_at: Type.Optional(DateTime),
  completed_at: Type.Optional(DateTime),
  canceled_at: Type.Optional(DateTime),
  error: Type.Optional(Type.String()),
  error_code: Type.Optional(Type.Literal('REQUIRED_TEMPLATE_VARIABLES')),
  file_id: Uuid,
  organization_id: Uuid,
  worker_id: Type.Optional(Uuid),
  worker_name: Type.Optional(Type.String()),
  /** Left out when no daemon can take the job, as the reference's server leaves an empty list out. */
  available_workers: Type.Optional(Type.Array(Uuid)),
  status: ProvisionerJobStatus,
  tags: Type.Record(Type.String(), Type.String()),
  type: Type.Union([Type.Literal('template_version_import'), Type.Literal('workspace_build'), Type.Literal('template_version_dry_run')]),
  queue_position: Type.Integer(),
  queue_size: Type.Integer(),
  input: Type.Object({
    template_version_id: Type.Optional(Uuid),
    workspace_build_id: Type.Optional(Uuid),
    error: Type.Optional(Type.String()),
  }),
  metadata: Type.Object({
    template_version_name: Type.String(),
    /** The zero UUID while the version belongs to no template, as the reference's server sends it. */
    template_id: Uuid,
    template_name: Type.String(),
    template_display_name: Type.String(),
    template_icon: Type.String(),
    /** Left out for jobs that build no workspace. */
    workspace_id: Type.Optional(Uuid),
    workspace_name: Type.Optional(Type.String()),
  }),
});
export type ProvisionerJob = Static<typeof ProvisionerJob>;

export const ProvisionerJobLog = Type.Object({
  id: Type.Integer(),
  created_at: DateTime,
  log_source: Type.Union([Type.Literal('provisioner_daemon'), Type.Literal('provisioner')]),
  log_level: Type.Union([Type.Literal('trace'), Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]),
  stage: Type.String(),
  output: Type.String(),
});
export type ProvisionerJobLog = Static<typeof ProvisionerJobLog>;

export const WorkspaceApp = Type.Object({
  id: Uuid,
  slug: Type.String(),
  display_name: Type.String(),
  url: Type.String(),
  /** Command, icon, subdomain name and group are left out when empty, as the reference's server does. */
  command: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  external: Type.Boolean(),
  subdomain: Type.Boolean(),
  subdomain_name: Type.Optional(Type.String()),
  hidden: Type.Boolean(),
  group: Type.Optional(Type.String()),
  open_in: Type.Union([Type.Literal('slim-window'), Type.Literal('tab')]),
  sharing_level: ShareLevel,
  health: Type.Union([Type.Literal('disabled'), Type.Literal('initializing'), Type.Literal('healthy'), Type.Literal('unhealthy')]),
  healthcheck: Type.Object({ url: Type.String(), interval: Type.Integer(), threshold: Type.Integer() }),
  /** Newest first. */
  statuses: Type.Array(WorkspaceAppStatus),
});
export type WorkspaceApp = Static<typeof WorkspaceApp>;

export const WorkspaceAgentScript = Type.Object({
  id: Uuid,
  log_source_id: Uuid,
  display_name: Type.String(),
  script: Type.String(),
  cron: Type.String(),
  log_path: Type.String(),
  run_on_start: Type.Boolean(),
  run_on_stop: Type.Boolean(),
  start_blocks_login: Type.Boolean(),
  timeout: Type.Integer(),
});

/** An agent as resources list it. Planned agents (of imports and dry runs) have never connected. */
export const WorkspaceAgent = Type.Object({
  id: Uuid,
  resource_id: Uuid,
  name: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  first_connected_at: Type.Optional(DateTime),
  last_connected_at: Type.Optional(DateTime),
  disconnected_at: Type.Optional(DateTime),
  started_at: Type.Optional(DateTime),
  ready_at: Type.Optional(DateTime),
  status: Type.Union([Type.Literal('connecting'), Type.Literal('connected'), Type.Literal('disconnected'), Type.Literal('timeout')]),
  lifecycle_state: Type.String(),
  /** Directory and instance id are left out when empty, as the reference's server leaves them out. */
  directory: Type.Optional(Type.String()),
  /** Left out until the agent reports it, as the reference's server leaves it out. */
  expanded_directory: Type.Optional(Type.String()),
  operating_system: Type.String(),
  architecture: Type.String(),
  instance_id: Type.Optional(Type.String()),
  version: Type.String(),
  api_version: Type.String(),
  troubleshooting_url: Type.String(),
  connection_timeout_seconds: Type.Integer(),
  logs_length: Type.Integer(),
  logs_overflowed: Type.Boolean(),
  display_apps: Type.Array(Type.String()),
  subsystems: Type.Array(Type.String()),
  environment_variables: Type.Record(Type.String(), Type.String()),
  health: Type.Object({ healthy: Type.Boolean(), reason: Type.Optional(Type.String()) }),
  /** Left out until a connected agent has reported its round trip to the relay. */
  latency: Type.Optional(Type.Record(Type.String(), Type.Object({ latency_ms: Type.Number(), preferred: Type.Boolean() }))),
  startup_script_behavior: Type.String(),
  log_sources: Type.Array(Type.Unknown()),
  /** The agent this one runs inside (a dev container's); null for a template's own agents. */
  parent_id: Nullable(Uuid),
  apps: Type.Array(WorkspaceApp),
  scripts: Type.Array(WorkspaceAgentScript),
});
export type WorkspaceAgent = Static<typeof WorkspaceAgent>;

export const WorkspaceResource = Type.Object({
  id: Uuid,
  job_id: Uuid,
  created_at: DateTime,
  workspace_transition: WorkspaceTransition,
  name: Type.String(),
  type: Type.String(),
  icon: Type.String(),
  hide: Type.Boolean(),
  daily_cost: Type.Integer(),
  /** Left out when the resource has none, as the reference's server leaves an empty list out. */
  metadata: Type.Optional(Type.Array(ResourceMetadata)),
  agents: Type.Array(WorkspaceAgent),
});
export type WorkspaceResource = Static<typeof WorkspaceResource>;

export const MatchedProvisioners = Type.Object({
  count: Type.Integer(),
  available: Type.Integer(),
  most_recently_seen: Nullable(DateTime),
});
export type MatchedProvisioners = Static<typeof MatchedProvisioners>;

export const TemplateVersion = Type.Object({
  id: Uuid,
  template_id: Uuid,
  organization_id: Uuid,
  created_at: DateTime,
  updated_at: DateTime,
  name: Type.String(),
  message: Type.String(),
  job: ProvisionerJob,
  readme: Type.String(),
  /** The avatar is left out when empty, and the warnings when there are none, as the reference sends them. */
  created_by: Type.Object({ id: Uuid, username: Type.String(), avatar_url: Type.Optional(Type.String()) }),
  archived: Type.Boolean(),
  warnings: Type.Optional(Type.Array(Type.String())),
  matched_provisioners: MatchedProvisioners,
});
export type TemplateVersion = Static<typeof TemplateVersion>;

export const CreateTemplateVersionRequest = Type.Object({
  template_id: Type.Optional(Uuid),
  name: Type.Optional(Type.String()),
  message: Type.Optional(Type.String({ maxLength: 1048576 })),
  storage_method: Type.Optional(Type.Literal('file')),
  file_id: Type.Optional(Uuid),
  example_id: Type.Optional(Type.String()),
  provisioner: Type.Optional(Type.Union([Type.Literal('terraform'), Type.Literal('native'), Type.Literal('echo')])),
  tags: Type.Optional(Type.Record(Type.String(), Type.String())),
  user_variable_values: Type.Optional(Type.Array(NameValue)),
});
export type CreateTemplateVersionRequest = Static<typeof CreateTemplateVersionRequest>;

export const PatchTemplateVersionRequest = Type.Object({
  name: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});
export type PatchTemplateVersionRequest = Static<typeof PatchTemplateVersionRequest>;

export const TemplateVersionVariable = Type.Object({
  name: Type.String(),
  description: Type.String(),
  type: Type.String(),
  value: Type.String(),
  default_value: Type.String(),
  required: Type.Boolean(),
  sensitive: Type.Boolean(),
});
export type TemplateVersionVariable = Static<typeof TemplateVersionVariable>;

/** A version's parameter; the display name and validation fields are left out when empty, as the reference does. */
export const TemplateVersionParameter = Type.Object({
  name: Type.String(),
  display_name: Type.Optional(Type.String()),
  description: Type.String(),
  description_plaintext: Type.String(),
  type: Type.String(),
  form_type: Type.String(),
  mutable: Type.Boolean(),
  ephemeral: Type.Boolean(),
  required: Type.Boolean(),
  default_value: Type.String(),
  icon: Type.String(),
  options: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), value: Type.String(), icon: Type.String() })),
  validation_regex: Type.Optional(Type.String()),
  validation_error: Type.Optional(Type.String()),
  validation_min: Type.Optional(Type.Number()),
  validation_max: Type.Optional(Type.Number()),
  validation_monotonic: Type.Optional(Type.String()),
  order: Type.Optional(Type.Integer()),
});
export type TemplateVersionParameter = Static<typeof TemplateVersionParameter>;

/**
 * A preset as the reference's server sends it: its Go type has no JSON names, so its keys are the
 * field names (`ID`, `Name`, ...), and its dashboard reads them so.
 */
export const TemplateVersionPreset = Type.Object({
  ID: Type.String(),
  Name: Type.String(),
  Parameters: Type.Array(Type.Object({ Name: Type.String(), Value: Type.String() })),
  Default: Type.Boolean(),
});
export type TemplateVersionPreset = Static<typeof TemplateVersionPreset>;

export const TemplateVersionExternalAuth = Type.Object({
  id: Type.String(),
  type: Type.String(),
  display_name: Type.String(),
  display_icon: Type.String(),
  authenticate_url: Type.String(),
  authenticated: Type.Boolean(),
  optional: Type.Boolean(),
});
export type TemplateVersionExternalAuth = Static<typeof TemplateVersionExternalAuth>;

export const TemplateExample = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  icon: Type.String(),
  markdown: Type.String(),
  url: Type.String(),
  tags: Type.Array(Type.String()),
});
export type TemplateExample = Static<typeof TemplateExample>;

const Weekdays = Type.Array(
  Type.Union(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => Type.Literal(day))),
);

export const Template = Type.Object({
  id: Uuid,
  created_at: DateTime,
  updated_at: DateTime,
  organization_id: Uuid,
  organization_name: Type.String(),
  organization_display_name: Type.String(),
  organization_icon: Type.String(),
  name: Type.String(),
  display_name: Type.String(),
  description: Type.String(),
  icon: Type.String(),
  provisioner: Type.String(),
  active_version_id: Uuid,
  active_user_count: Type.Integer(),
  /** Keyed `P50`/`P95`: the reference's Go type has no JSON names, and its dashboard reads them so. */
  build_time_stats: Type.Record(
    Type.String(),
    Type.Object({ P50: Type.Union([Type.Integer(), Type.Null()]), P95: Type.Union([Type.Integer(), Type.Null()]) }),
  ),
  default_ttl_ms: Type.Integer(),
  activity_bump_ms: Type.Integer(),
  autostop_requirement: Type.Object({ days_of_week: Weekdays, weeks: Type.Integer() }),
  autostart_requirement: Type.Object({ days_of_week: Weekdays }),
  allow_user_autostart: Type.Boolean(),
  allow_user_autostop: Type.Boolean(),
  allow_user_cancel_workspace_jobs: Type.Boolean(),
  failure_ttl_ms: Type.Integer(),
  time_til_dormant_ms: Type.Integer(),
  time_til_dormant_autodelete_ms: Type.Integer(),
  require_active_version: Type.Boolean(),
  deprecated: Type.Boolean(),
  deprecation_message: Type.String(),
  max_port_share_level: ShareLevel,
  use_classic_parameter_flow: Type.Boolean(),
  created_by_id: Uuid,
  created_by_name: Type.String(),
  /**
   * Fields above whose stored value does not act: the deployment is not entitled to advanced
   * template scheduling (spec: Template rules). Empty when every setting acts.
   */
  settings_not_in_effect: Type.Array(Type.String()),
});
export type Template = Static<typeof Template>;

const SchedulingFields = {
  default_ttl_ms: Type.Optional(DurationMs),
  activity_bump_ms: Type.Optional(DurationMs),
  autostop_requirement: Type.Optional(
    Type.Object({ days_of_week: Type.Optional(Type.Array(Type.String())), weeks: Type.Optional(Type.Integer()) }),
  ),
  autostart_requirement: Type.Optional(Type.Object({ days_of_week: Type.Optional(Type.Array(Type.String())) })),
  allow_user_autostart: Type.Optional(Type.Boolean()),
  allow_user_autostop: Type.Optional(Type.Boolean()),
  allow_user_cancel_workspace_jobs: Type.Optional(Type.Boolean()),
  failure_ttl_ms: Type.Optional(DurationMs),
  time_til_dormant_ms: Type.Optional(DurationMs),
  time_til_dormant_autodelete_ms: Type.Optional(DurationMs),
  require_active_version: Type.Optional(Type.Boolean()),
  max_port_share_level: Type.Optional(ShareLevel),
  use_classic_parameter_flow: Type.Optional(Type.Boolean()),
  disable_everyone_group_access: Type.Optional(Type.Boolean()),
};

export const CreateTemplateRequest = Type.Object({
  name: Type.String(),
  display_name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String({ maxLength: 128 })),
  icon: Type.Optional(Type.String()),
  template_version_id: Uuid,
  delete_ttl_ms: Type.Optional(DurationMs),
  dormant_ttl_ms: Type.Optional(DurationMs),
  ...SchedulingFields,
  // The reference's create form sends `null` for these two when the default is meant.
  allow_user_cancel_workspace_jobs: Type.Optional(Nullable(Type.Boolean())),
  max_port_share_level: Type.Optional(Nullable(ShareLevel)),
});
export type CreateTemplateRequest = Static<typeof CreateTemplateRequest>;

export const UpdateTemplateMeta = Type.Object({
  name: Type.Optional(Type.String()),
  display_name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String({ maxLength: 128 })),
  icon: Type.Optional(Type.String()),
  deprecation_message: Type.Optional(Type.String()),
  update_workspace_last_used_at: Type.Optional(Type.Boolean()),
  update_workspace_dormant_at: Type.Optional(Type.Boolean()),
  ...SchedulingFields,
});
export type UpdateTemplateMeta = Static<typeof UpdateTemplateMeta>;

const Diagnostic = Type.Object({
  severity: Type.Union([Type.Literal('error'), Type.Literal('warning')]),
  summary: Type.String(),
  detail: Type.String(),
  extra: Type.Object({ code: Type.String() }),
});

const ValidValue = Type.Object({ valid: Type.Boolean(), value: Type.String() });

export const DynamicParameter = Type.Object({
  name: Type.String(),
  display_name: Type.String(),
  description: Type.String(),
  icon: Type.String(),
  type: Type.String(),
  form_type: Type.String(),
  mutable: Type.Boolean(),
  ephemeral: Type.Boolean(),
  required: Type.Boolean(),
  order: Type.Integer(),
  default_value: ValidValue,
  value: ValidValue,
  diagnostics: Type.Array(Diagnostic),
  options: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), icon: Type.String(), value: ValidValue })),
  styling: Type.Object({ disabled: Type.Boolean(), label: Type.String(), placeholder: Type.String() }),
  validations: Type.Array(
    Type.Object({
      validation_error: Type.String(),
      validation_min: Type.Union([Type.Integer(), Type.Null()]),
      validation_max: Type.Union([Type.Integer(), Type.Null()]),
      validation_monotonic: Type.String(),
      validation_regex: Type.String(),
    }),
  ),
});
export type DynamicParameter = Static<typeof DynamicParameter>;

export const DynamicParametersRequest = Type.Object({
  id: Type.Integer(),
  inputs: Type.Record(Type.String(), Type.String()),
  owner_id: Type.Optional(Uuid),
});
export type DynamicParametersRequest = Static<typeof DynamicParametersRequest>;

export const DynamicParametersResponse = Type.Object({
  id: Type.Integer(),
  diagnostics: Type.Array(Diagnostic),
  parameters: Type.Array(DynamicParameter),
});
export type DynamicParametersResponse = Static<typeof DynamicParametersResponse>;
