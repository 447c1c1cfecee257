import type { JobView } from '../../domain/provisioner-job-views.js';
import { buildStatus } from '../../domain/workspace-builds.js';
import type { WorkspaceBuild, WorkspaceResource } from '../../sdk/wire/index.js';
import type { UserName, WorkspaceBuildRow, WorkspaceRow } from '../../store/rows.js';
import { toWireJob } from './provisioner-job.js';

/** What a build's answer names besides the build: its workspace's owner, initiator, version, job and resources. */
export interface BuildRelations {
  readonly owner: UserName | undefined;
  readonly initiator: UserName | undefined;
  readonly versionName: string;
  readonly job: JobView;
  readonly resources: readonly WorkspaceResource[];
}

/** A build row as the API shows it. */
export function toWireBuild(build: WorkspaceBuildRow, workspace: WorkspaceRow, related: BuildRelations): WorkspaceBuild {
  return {
    id: build.id,
    created_at: build.created_at,
    updated_at: build.updated_at,
    workspace_id: workspace.id,
    workspace_name: workspace.name,
    workspace_owner_id: workspace.owner_id,
    workspace_owner_name: related.owner?.username ?? '',
    // Left out when empty, as the reference's server leaves it out.
    workspace_owner_avatar_url: related.owner?.avatar_url || undefined,
    template_version_id: build.template_version_id,
    template_version_name: related.versionName,
    template_version_preset_id: build.template_version_preset_id || null,
    build_number: build.build_number,
    transition: build.transition as WorkspaceBuild['transition'],
    initiator_id: build.initiator_id,
    initiator_name: related.initiator?.username ?? '',
    job: toWireJob(related.job),
    reason: build.reason,
    resources: [...related.resources],
    deadline: build.deadline || null,
    max_deadline: build.max_deadline || null,
    status: buildStatus(related.job.status, build.transition),
    daily_cost: build.daily_cost,
    matched_provisioners: related.job.matchedProvisioners,
    has_ai_task: false,
  };
}
