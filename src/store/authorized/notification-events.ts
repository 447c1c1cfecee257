import { StoreFamily } from './store-family.js';
import { templateRbac, workspaceRbac } from '../rbac-objects.js';
import { orgScoped, siteObject, userObject } from '../../rbac/index.js';
import { parseStringArray } from '../json-column.js';
import * as events from '../queries/notification-events.js';
import type { ProvisionerJobRow } from '../queries/provisioner-jobs.js';
import type { TemplateRow } from '../queries/templates.js';
import type { UserRow } from '../queries/users.js';
import type { WorkspaceBuildRow, WorkspaceRow } from '../queries/workspace-rows.js';

/** A workspace an event is about, with the build it concerns and its owner. */
export interface WorkspaceEventFacts {
  readonly workspace: WorkspaceRow;
  readonly build: WorkspaceBuildRow;
  readonly owner: UserRow;
}

/** A finished build: its workspace, job, owner, who started it and the template. */
export interface FinishedBuildFacts extends WorkspaceEventFacts {
  readonly job: ProvisionerJobRow;
  readonly initiator: UserRow | undefined;
  readonly template: TemplateRow | undefined;
}

/** The builds of one template that ended in a period, for the weekly report. */
export interface TemplateBuildOutcomes {
  readonly template: TemplateRow;
  readonly total: number;
  readonly failed: readonly (WorkspaceEventFacts & { readonly error: string })[];
}

/**
 * What notification events read: who is to be told and what about. Every row handed out is one
 * the subject may read (lists are filtered); in practice the subject is the notification events
 * system subject, since recipients are rarely rows the user who caused an event may read.
 */
export class NotificationEventStore extends StoreFamily {
  /** Started workspaces whose deadline falls in `(after, until]`, with their owners; those the subject may read. */
  async nearingDeadline(after: Date, until: Date): Promise<WorkspaceEventFacts[]> {
    const rows = await events.listWorkspacesNearingDeadline(this.db, after.toISOString(), until.toISOString());
    return this.#withOwners(rows.filter((row) => this.can('read', workspaceRbac(row.workspace))));
  }

  /** The live workspaces of a template (not on `exceptVersionId`, when given) with their owners; those the subject may read. */
  async workspacesOfTemplate(template: TemplateRow, exceptVersionId?: string): Promise<WorkspaceEventFacts[]> {
    this.require('read', templateRbac(template));
    const rows = await events.listWorkspacesOfTemplate(this.db, template.id, exceptVersionId);
    return this.#withOwners(rows.filter((row) => this.can('read', workspaceRbac(row.workspace))));
  }

  /** The build a job ran, with everything its notifications name; undefined for a job of no build. */
  async finishedBuild(jobId: string): Promise<FinishedBuildFacts | undefined> {
    const found = await events.getBuildOfJob(this.db, jobId);
    if (!found) return undefined;
    this.require('read', workspaceRbac(found.workspace));
    this.require('read', orgScoped('provisioner_jobs', found.job.organization_id));
    const [people, templates] = await Promise.all([
      events.getUsersByIds(this.db, [found.workspace.owner_id, found.build.initiator_id]),
      events.getTemplatesByIds(this.db, [found.workspace.template_id]),
    ]);
    const owner = people.get(found.workspace.owner_id);
    if (!owner) return undefined;
    this.require('read', userObject(owner.id));
    const initiator = people.get(found.build.initiator_id);
    const template = templates.get(found.workspace.template_id);
    return {
      ...found,
      owner,
      initiator: initiator && this.can('read', userObject(initiator.id)) ? initiator : undefined,
      template: template && this.can('read', templateRbac(template)) ? template : undefined,
    };
  }

  /** Users who are neither deleted nor suspended and hold one of these site roles; needs `read` on users. */
  async usersWithSiteRoles(roles: readonly string[]): Promise<UserRow[]> {
    this.require('read', siteObject('user'));
    const rows = await events.listUsersWithSiteRoles(this.db);
    return rows.filter((row) => parseStringArray(row.rbac_roles).some((role) => roles.includes(role)));
  }

  /**
   * Per template, how many builds ended in `[since, until)` and which of them failed (canceled
   * ones are not failures), among the workspaces the subject may read; templates the subject may
   * not read are left out.
   */
  async buildOutcomes(since: Date, until: Date): Promise<TemplateBuildOutcomes[]> {
    const ended = (await events.listBuildsEndedBetween(this.db, since.toISOString(), until.toISOString())).filter((row) =>
      this.can('read', workspaceRbac(row.workspace)),
    );
    const templates = await events.getTemplatesByIds(
      this.db,
      ended.map((row) => row.workspace.template_id),
    );
    const owners = await events.getUsersByIds(
      this.db,
      ended.map((row) => row.workspace.owner_id),
    );
    const outcomes = new Map<string, { template: TemplateRow; total: number; failed: (WorkspaceEventFacts & { error: string })[] }>();
    for (const row of ended) {
      const template = templates.get(row.workspace.template_id);
      if (!template || !this.can('read', templateRbac(template))) continue;
      const entry = outcomes.get(template.id) ?? { template, total: 0, failed: [] };
      outcomes.set(template.id, entry);
      entry.total++;
      const owner = owners.get(row.workspace.owner_id);
      if (row.job.error !== '' && row.job.canceled_at === null && owner) {
        entry.failed.push({ workspace: row.workspace, build: row.build, owner, error: row.job.error });
      }
    }
    return [...outcomes.values()];
  }

  /**
   * Claims the run of the periodic report `kindId` due at `now`, at most one per `periodMs`: of
   * replicas and retries claiming the same run, one gets it. Returns the start of the period the
   * report covers (its last run, or one period back the first time), or undefined when the run is
   * not due or is another's. Needs `update` on notification templates.
   */
  async claimReportRun(kindId: string, now: Date, periodMs: number): Promise<Date | undefined> {
    this.require('update', siteObject('notification_template'));
    const notBefore = new Date(now.getTime() - periodMs).toISOString();
    const claimed = await events.claimReportRun(this.db, kindId, now.toISOString(), notBefore);
    if (!claimed) return undefined;
    return claimed.last ? new Date(claimed.last) : new Date(notBefore);
  }

  async #owners(rows: readonly { workspace: WorkspaceRow }[]): Promise<Map<string, UserRow>> {
    const owners = await events.getUsersByIds(
      this.db,
      rows.map((row) => row.workspace.owner_id),
    );
    for (const owner of owners.values()) this.require('read', userObject(owner.id));
    return owners;
  }

  async #withOwners(rows: readonly { workspace: WorkspaceRow; build: WorkspaceBuildRow }[]): Promise<WorkspaceEventFacts[]> {
    const owners = await this.#owners(rows);
    return rows.flatMap((row) => {
      const owner = owners.get(row.workspace.owner_id);
      return owner ? [{ ...row, owner }] : [];
    });
  }
}
