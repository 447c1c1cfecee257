import { toWireAppStatus } from '../../domain/app-statuses.js';
import { nextAutostart } from '../../domain/schedule/index.js';
import type { Workspace, WorkspaceBuild } from '../../sdk/wire/index.js';
import type { AppStatusRow, TemplateRow, UserName, WorkspaceRow } from '../../store/rows.js';

/** What a workspace's answer shows besides its row: owner, organization, template and latest build. */
export interface WorkspaceRelations {
  readonly owner: UserName | undefined;
  readonly organizationName: string;
  readonly template: TemplateRow;
  readonly latestBuild: WorkspaceBuild;
  readonly latestAppStatus: AppStatusRow | undefined;
  readonly allowRenames: boolean;
  readonly now: Date;
  /** Who asks: a workspace is a favorite only to its owner, who marked it. */
  readonly requesterId: string;
}

/** A workspace row as the API shows it. */
export function toWireWorkspace(workspace: WorkspaceRow, related: WorkspaceRelations): Workspace {
  const { template, latestBuild } = related;
  // Only a started workspace expects its agents to run; those of a stop build are not failing.
  const running = latestBuild.transition === 'start' ? latestBuild.resources.flatMap((r) => r.agents) : [];
  const failing = running.filter((agent) => !agent.health.healthy).map((agent) => agent.id);
  return {
    id: workspace.id,
    created_at: workspace.created_at,
    updated_at: workspace.updated_at,
    owner_id: workspace.owner_id,
    owner_name: related.owner?.username ?? '',
    owner_avatar_url: related.owner?.avatar_url ?? '',
    organization_id: workspace.organization_id,
    organization_name: related.organizationName,
    template_id: template.id,
    template_name: template.name,
    template_display_name: template.display_name,
    template_icon: template.icon,
    template_allow_user_cancel_workspace_jobs: template.allow_user_cancel_workspace_jobs === 1,
    template_active_version_id: template.active_version_id,
    template_require_active_version: template.require_active_version === 1,
    template_use_classic_parameter_flow: template.use_classic_parameter_flow === 1,
    latest_build: latestBuild,
    latest_app_status: related.latestAppStatus ? toWireAppStatus(related.latestAppStatus) : null,
    outdated: latestBuild.template_version_id !== template.active_version_id,
    name: workspace.name,
    autostart_schedule: workspace.autostart_schedule || undefined,
    ttl_ms: workspace.ttl_ms || undefined,
    last_used_at: workspace.last_used_at,
    deleting_at: workspace.deleting_at || null,
    dormant_at: workspace.dormant_at || null,
    health: { healthy: failing.length === 0, failing_agents: failing },
    automatic_updates: workspace.automatic_updates,
    allow_renames: related.allowRenames,
    favorite: workspace.favorite === 1 && workspace.owner_id === related.requesterId,
    next_start_at: nextStart(workspace, template, related.now),
  };
}

function nextStart(
  workspace: WorkspaceRow,
  template: Pick<TemplateRow, 'allow_user_autostart' | 'autostart_requirement_days'>,
  now: Date,
): string | null {
  try {
    const at = nextAutostart({
      schedule: workspace.autostart_schedule,
      after: now,
      templateAllowsAutostart: template.allow_user_autostart === 1,
      autostartDays: template.autostart_requirement_days,
    });
    return at ? at.toISOString() : null;
  } catch {
    return null;
  }
}
