import type { AuditChange } from '../audit/audit-request.js';
import { StoreFamily } from './store-family.js';
import { cancelAuthorizedJob } from './cancel-job.js';
import { templateRbac, workspaceRbac } from '../rbac-objects.js';
import { type Database } from '../schema.js';
import { withConflicts } from '../db-errors.js';
import { isUuid } from '../../lib/random.js';
import { NotAuthorizedError, NotFoundError } from '../../lib/errors.js';
import * as jobs from '../queries/provisioner-jobs.js';
import * as templates from '../queries/templates.js';
import * as workspaces from '../queries/workspaces.js';

/** The store's decision that a subject may queue a build of a workspace; see `WorkspaceBuildStore.grant`. */
export interface BuildGrant {
  readonly transition: string;
  /** The workspace as it was when the decision was made. */
  readonly workspace: workspaces.WorkspaceRow;
}

/** Workspace builds, their jobs, logs and agents. */
export class WorkspaceBuildStore extends StoreFamily {
  /**
   * Decides whether the subject may queue a build of the workspace: starting and stopping need
   * `start` or `stop` (what a workspace shared for use grants) or `update`, deleting needs
   * `delete`. The grant is what {@link insert} takes.
   */
  grant(workspace: workspaces.WorkspaceRow, transition: string): BuildGrant {
    const object = workspaceRbac(workspace);
    if (transition === 'delete') this.require('delete', object);
    else if (!((transition === 'start' || transition === 'stop') && this.can(transition, object))) this.require('update', object);
    const grant: BuildGrant = Object.freeze({ transition, workspace });
    this.grants.add(grant);
    return grant;
  }

  /**
   * Queues a build with its job (an orphan delete completes at once and deletes the workspace) in
   * one transaction, under a grant this store made for the same workspace and transition. Two
   * builds racing for the same number end with one 409 (ConflictError). When the subject may read
   * the workspace, also gives what the build's answer needs, read in the same round trip (see
   * workspaces.insert).
   */
  async insert(grant: BuildGrant, insert: workspaces.BuildInsert): Promise<workspaces.NewBuildReads | undefined> {
    const granted =
      this.grants.has(grant) && grant.workspace.id === insert.build.workspace_id && grant.transition === insert.build.transition;
    if (!granted) throw new NotAuthorizedError(insert.build.transition === 'delete' ? 'delete' : 'update', 'workspace');
    const { workspace } = grant;
    // A start runs the template's code as the owner, with their git SSH key: acting as them.
    // Its owner sharing it with the subject for `start` is their consent to that.
    if (insert.build.transition === 'start' && !this.#startsThroughAcl(workspace))
      await this.requireOutranks(workspace.owner_id, workspace.organization_id);
    const read = this.can('read', workspaceRbac(workspace));
    // A new latest build (or an orphan delete) ends the agents of the one before.
    let ownerName = '';
    const reads = await this.store.changingAgentAuths({ workspaceId: workspace.id }, () =>
      withConflicts(() =>
        this.audited(
          async (trx) => {
            const reads = await workspaces.insertBuild(trx, this.store.dialect, workspace, insert, read);
            // The answer's reads name the owner already; only a caller who may not read the workspace costs a query.
            ownerName =
              reads?.users.find((user) => user.id === workspace.owner_id)?.username ??
              (await trx.selectFrom('users').select('username').where('id', '=', workspace.owner_id).executeTakeFirst())?.username ??
              '';
            return reads;
          },
          () => buildChange(workspace, insert.build, ownerName),
        ),
      ),
    );
    // An orphan delete ends the workspace at once: one user fewer for the template's figures.
    if (insert.build.transition === 'delete') this.store.templateStatistics.invalidate(workspace.template_id);
    return reads;
  }

  /**
   * A page of a readable workspace's builds, newest first, paged in SQL; undefined when `afterId`
   * names no build of the workspace (within `since`).
   */
  async list(
    workspace: workspaces.WorkspaceRow,
    page: { readonly since?: string | undefined; readonly afterId?: string | undefined; readonly limit: number; readonly offset: number },
  ): Promise<workspaces.WorkspaceBuildRow[] | undefined> {
    this.require('read', workspaceRbac(workspace));
    return workspaces.listBuildsPage(this.db, workspace.id, { ...page, sqlite: this.store.dialect === 'sqlite' });
  }

  /** A readable workspace's build by number. */
  async getByNumber(workspace: workspaces.WorkspaceRow, buildNumber: number): Promise<workspaces.WorkspaceBuildRow> {
    this.require('read', workspaceRbac(workspace));
    const build = await workspaces.getBuildByNumber(this.db, workspace.id, buildNumber);
    if (!build) throw new NotFoundError('workspace build');
    return build;
  }

  /** The newest build of a readable workspace, with its job; undefined when it has none. */
  async getLatest(
    workspace: workspaces.WorkspaceRow,
  ): Promise<{ build: workspaces.WorkspaceBuildRow; job: jobs.ProvisionerJobRow } | undefined> {
    this.require('read', workspaceRbac(workspace));
    const latest = await workspaces.latestBuildWithJob(this.db, workspace.id);
    return latest?.job ? { build: latest.build, job: latest.job } : undefined;
  }

  /** The newest build of each readable workspace, in one query. */
  async listLatest(rows: readonly workspaces.WorkspaceRow[]): Promise<Map<string, workspaces.WorkspaceBuildRow>> {
    for (const row of rows) this.require('read', workspaceRbac(row));
    return workspaces.latestBuilds(
      this.db,
      rows.map((w) => w.id),
    );
  }

  /** The job of a build of a readable workspace. */
  async job(workspace: workspaces.WorkspaceRow, build: workspaces.WorkspaceBuildRow): Promise<jobs.ProvisionerJobRow> {
    this.require('read', workspaceRbac(workspace));
    const job = build.workspace_id === workspace.id ? await jobs.getJobById(this.db, build.job_id) : undefined;
    if (!job) throw new NotFoundError('provisioner job');
    return job;
  }

  /** Log lines of a build's job, ascending by id within (after, before); needs `read` on the workspace. */
  async logs(
    workspace: workspaces.WorkspaceRow,
    build: workspaces.WorkspaceBuildRow,
    range: { readonly after?: number | undefined; readonly before?: number | undefined },
  ): Promise<jobs.ProvisionerJobLogRow[]> {
    this.require('read', workspaceRbac(workspace));
    if (build.workspace_id !== workspace.id) throw new NotFoundError('workspace build');
    let query = this.db.selectFrom('provisioner_job_logs').selectAll().where('job_id', '=', build.job_id);
    if (range.after !== undefined) query = query.where('id', '>', range.after);
    if (range.before !== undefined) query = query.where('id', '<', range.before);
    return query.orderBy('id').execute();
  }

  /** Moves (or lifts, with null) a build's deadline; needs `update` on the workspace. */
  async setDeadline(workspace: workspaces.WorkspaceRow, build: workspaces.WorkspaceBuildRow, deadline: string | null): Promise<void> {
    this.require('update', workspaceRbac(workspace));
    if (build.workspace_id !== workspace.id) throw new NotFoundError('workspace build');
    await this.audited(
      (trx) => workspaces.setBuildDeadline(trx, build.id, deadline),
      () => ({
        resourceType: 'workspace_build',
        action: 'write',
        resourceId: build.id,
        resourceTarget: workspace.name,
        organizationId: workspace.organization_id,
        old: { deadline: build.deadline },
        new: { deadline },
        additionalFields: { build_number: String(build.build_number), workspace_name: workspace.name, workspace_id: workspace.id },
      }),
    );
  }

  /** The agents of a readable workspace's latest build, by name. */
  async latestAgents(workspace: workspaces.WorkspaceRow): Promise<workspaces.WorkspaceAgentRow[]> {
    this.require('read', workspaceRbac(workspace));
    return workspaces.listLatestBuildAgents(this.db, workspace.id);
  }

  /** The agents of a build of a readable workspace, by name. */
  async agents(workspace: workspaces.WorkspaceRow, build: workspaces.WorkspaceBuildRow): Promise<workspaces.WorkspaceAgentRow[]> {
    this.require('read', workspaceRbac(workspace));
    if (build.workspace_id !== workspace.id) throw new NotFoundError('workspace build');
    return workspaces.listBuildAgents(this.db, build);
  }

  /** How the scripts of a readable workspace's agents ran, oldest first. */
  async scriptTimings(
    workspace: workspaces.WorkspaceRow,
    agentRows: readonly workspaces.WorkspaceAgentRow[],
  ): Promise<Database['workspace_agent_script_timings'][]> {
    this.require('read', workspaceRbac(workspace));
    return workspaces.listScriptTimings(
      this.db,
      agentRows.map((a) => a.id),
    );
  }

  /** One build with its workspace. */
  async get(id: string): Promise<{ build: workspaces.WorkspaceBuildRow; workspace: workspaces.WorkspaceRow }> {
    const build = isUuid(id) ? await workspaces.getBuildById(this.db, id) : undefined;
    if (!build) throw new NotFoundError('workspace build');
    const workspace = await workspaces.getWorkspaceById(this.db, build.workspace_id);
    if (!workspace) throw new NotFoundError('workspace');
    this.require('read', workspaceRbac(workspace));
    return { build, workspace };
  }

  /**
   * Replaces a build's provisioner state. The state describes the template's infrastructure and
   * may hold its secrets, so this needs `update` on the workspace's template, as reading it does.
   */
  async setProvisionerState(workspace: workspaces.WorkspaceRow, build: workspaces.WorkspaceBuildRow, state: Buffer): Promise<void> {
    this.require('read', workspaceRbac(workspace));
    if (build.workspace_id !== workspace.id) throw new NotFoundError('workspace build');
    const template = await templates.getTemplateById(this.db, workspace.template_id);
    if (!template) throw new NotFoundError('template');
    this.require('update', templateRbac(template));
    await workspaces.setBuildProvisionerState(this.db, build.id, state);
  }

  /** Asks a build's job to stop (see {@link templateVersions.cancelJob}); needs `update` on the workspace. */
  async cancelJob(
    workspace: workspaces.WorkspaceRow,
    job: jobs.ProvisionerJobRow,
    cancellation: jobs.JobCancellation,
  ): Promise<jobs.ProvisionerJobRow> {
    this.require('update', workspaceRbac(workspace));
    return cancelAuthorizedJob(this.store, this.db, job, cancellation);
  }

  /** Whether only the workspace's ACL, not the subject's roles, lets the subject start it. */
  #startsThroughAcl(workspace: workspaces.WorkspaceRow): boolean {
    const object = workspaceRbac(workspace);
    return this.can('start', object) && !this.can('start', { ...object, acl_user_list: {}, acl_group_list: {} });
  }
}

/**
 * A build's audit entry: its transition is the action, the workspace names it, and the entry says
 * why it was made (`build_reason`: the caller, or the lifecycle executor's autostart, autostop,
 * dormancy...). Only a new template version shows in its diff, as in the reference.
 */
function buildChange(workspace: workspaces.WorkspaceRow, build: workspaces.WorkspaceBuildRow, ownerName: string): AuditChange {
  return {
    resourceType: 'workspace_build',
    action: build.transition,
    resourceId: build.id,
    resourceTarget: workspace.name,
    organizationId: workspace.organization_id,
    new: { template_version_id: build.template_version_id },
    additionalFields: {
      build_number: String(build.build_number),
      build_reason: build.reason,
      workspace_name: workspace.name,
      workspace_owner: ownerName,
      workspace_id: workspace.id,
    },
  };
}
