import { Type, type Static } from '@sinclair/typebox';
import { DateTime, DurationMs, Nullable, Uuid, WorkspaceTransition } from './common.js';
import { NameValue } from './provisioner-protocol.js';
import { MatchedProvisioners, ProvisionerJob, WorkspaceResource } from './templates.js';
import { WorkspaceAppStatus } from './workspace-agent-extras.js';

/** Wire shapes of workspaces and their builds. */

export const WorkspaceBuildStatus = Type.Union(
  ['pending', 'starting', 'running', 'stopping', 'stopped', 'deleting', 'deleted', 'canceling', 'canceled', 'failed'].map((s) =>
    Type.Literal(s),
  ),
);

export const WorkspaceBuild = Type.Object({
  id: Uuid,
  created_at: DateTime,
  updated_at: DateTime,
  workspace_id: Uuid,
  workspace_name: Type.String(),
  workspace_owner_id: Uuid,
  workspace_owner_name: Type.String(),
  /** Left out when empty, as the reference's server leaves it out. */
  workspace_owner_avatar_url: Type.Optional(Type.String()),
  template_version_id: Uuid,
  template_version_name: Type.String(),
  template_version_preset_id: Nullable(Uuid),
  build_number: Type.Integer(),
  transition: WorkspaceTransition,
  initiator_id: Uuid,
  initiator_name: Type.String(),
  job: ProvisionerJob,
  reason: Type.String(),
  resources: Type.Array(WorkspaceResource),
  // The reference's server sends these two as null when unset, though its client types call them optional.
  deadline: Nullable(DateTime),
  max_deadline: Nullable(DateTime),
  status: WorkspaceBuildStatus,
  daily_cost: Type.Integer(),
  matched_provisioners: MatchedProvisioners,
  has_ai_task: Type.Boolean(),
  /** Left out, as the reference leaves out a build's missing sidebar app: no build runs an AI task. */
  ai_task_sidebar_app_id: Type.Optional(Uuid),
});
export type WorkspaceBuild = Static<typeof WorkspaceBuild>;

export const Workspace = Type.Object({
  id: Uuid,
  created_at: DateTime,
  updated_at: DateTime,
  owner_id: Uuid,
  owner_name: Type.String(),
  owner_avatar_url: Type.String(),
  organization_id: Uuid,
  organization_name: Type.String(),
  template_id: Uuid,
  template_name: Type.String(),
  template_display_name: Type.String(),
  template_icon: Type.String(),
  template_allow_user_cancel_workspace_jobs: Type.Boolean(),
  template_active_version_id: Uuid,
  template_require_active_version: Type.Boolean(),
  template_use_classic_parameter_flow: Type.Boolean(),
  latest_build: WorkspaceBuild,
  /** The newest status any of the workspace's apps reported; null until one does. */
  latest_app_status: Nullable(WorkspaceAppStatus),
  outdated: Type.Boolean(),
  name: Type.String(),
  /** Left out when the workspace has none, as the reference's server does. */
  autostart_schedule: Type.Optional(Type.String()),
  /** Left out when the workspace does not stop by itself, as the reference's server does. */
  ttl_ms: Type.Optional(DurationMs),
  last_used_at: DateTime,
  deleting_at: Nullable(DateTime),
  dormant_at: Nullable(DateTime),
  health: Type.Object({ healthy: Type.Boolean(), failing_agents: Type.Array(Uuid) }),
  automatic_updates: Type.String(),
  allow_renames: Type.Boolean(),
  favorite: Type.Boolean(),
  next_start_at: Nullable(DateTime),
});
export type Workspace = Static<typeof Workspace>;

export const WorkspacesResponse = Type.Object({ workspaces: Type.Array(Workspace), count: Type.Integer() });
export type WorkspacesResponse = Static<typeof WorkspacesResponse>;

export const CreateWorkspaceRequest = Type.Object({
  name: Type.String(),
  template_id: Type.Optional(Uuid),
  template_version_id: Type.Optional(Uuid),
  template_version_preset_id: Type.Optional(Uuid),
  autostart_schedule: Type.Optional(Type.String()),
  ttl_ms: Type.Optional(DurationMs),
  automatic_updates: Type.Optional(Type.String()),
  rich_parameter_values: Type.Optional(Type.Array(NameValue)),
});
export type CreateWorkspaceRequest = Static<typeof CreateWorkspaceRequest>;

export const CreateWorkspaceBuildRequest = Type.Object({
  transition: Type.String(),
  template_version_id: Type.Optional(Uuid),
  rich_parameter_values: Type.Optional(Type.Array(NameValue)),
  orphan: Type.Optional(Type.Boolean()),
  log_level: Type.Optional(Type.Literal('debug')),
  dry_run: Type.Optional(Type.Boolean()),
  state: Type.Optional(Type.String()),
  template_version_preset_id: Type.Optional(Uuid),
  reason: Type.Optional(Type.String()),
});
export type CreateWorkspaceBuildRequest = Static<typeof CreateWorkspaceBuildRequest>;

/** A build's provisioner state, replaced without a new build: the bytes, base64-encoded as the reference's clients send them. */
export const UpdateWorkspaceBuildStateRequest = Type.Object({ state: Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$' }) });
export type UpdateWorkspaceBuildStateRequest = Static<typeof UpdateWorkspaceBuildStateRequest>;

export const PortShare = Type.Object({
  workspace_id: Uuid,
  agent_name: Type.String(),
  port: Type.Integer(),
  share_level: Type.String(),
  protocol: Type.String(),
});
export type PortShare = Static<typeof PortShare>;

/** The reference's names of the stages a build's timings are charted by (`stage` of each timing). */
export type TimingStage = 'init' | 'plan' | 'graph' | 'apply' | 'start' | 'stop' | 'cron' | 'connect';

const ProvisionerTiming = Type.Object({
  job_id: Type.String(),
  started_at: Type.String(),
  ended_at: Type.String(),
  stage: Type.String(),
  source: Type.String(),
  action: Type.String(),
  resource: Type.String(),
});
/** Where a build spent its time: provisioner stages, agent connections and agent scripts. */
export const WorkspaceBuildTimings = Type.Object({
  provisioner_timings: Type.Array(ProvisionerTiming),
  agent_script_timings: Type.Array(
    Type.Object({
      display_name: Type.String(),
      status: Type.String(),
      stage: Type.String(),
      exit_code: Type.Integer(),
      workspace_agent_id: Type.String(),
      workspace_agent_name: Type.String(),
      started_at: Type.String(),
      ended_at: Type.String(),
    }),
  ),
  agent_connection_timings: Type.Array(
    Type.Object({
      stage: Type.String(),
      workspace_agent_id: Type.String(),
      workspace_agent_name: Type.String(),
      started_at: Type.String(),
      ended_at: Type.String(),
    }),
  ),
});
export type WorkspaceBuildTimings = Static<typeof WorkspaceBuildTimings>;
