import type { AuditChange } from '../audit/audit-request.js';
import { StoreFamily } from './store-family.js';
import { versionRbac, versionsRbac } from './version-rbac.js';
import { cancelAuthorizedJob } from './cancel-job.js';
import { notFound } from './store-family.js';
import { templateRbac } from '../rbac-objects.js';
import { parseJson } from '../json-column.js';
import { withConflicts } from '../db-errors.js';
import { orgScoped } from '../../rbac/index.js';
import { isUuid } from '../../lib/random.js';
import { NotFoundError } from '../../lib/errors.js';
import * as jobs from '../queries/provisioner-jobs.js';
import * as templates from '../queries/templates.js';

/** A template version with its import job. */
export interface VersionWithJob {
  readonly version: templates.TemplateVersionRow;
  readonly job: jobs.ProvisionerJobRow;
}

/** Template versions, their import jobs and dry runs. */
export class TemplateVersionStore extends StoreFamily {
  /**
   * Creates a version and its import job together. Adding to a template needs `update` on it; a
   * version for no template yet needs the right to create templates in the organization.
   */
  async insert(version: templates.TemplateVersionRow, job: jobs.ProvisionerJobRow, template?: templates.TemplateRow): Promise<void> {
    this.require(template ? 'update' : 'create', template ? templateRbac(template) : orgScoped('template', version.organization_id));
    await this.audited(
      async (trx) => {
        await jobs.insertJob(trx, job);
        await withConflicts(() => templates.insertTemplateVersion(trx, version));
      },
      () => versionChange('create', undefined, version),
    );
  }

  /** A version and its import job. */
  async get(id: string): Promise<VersionWithJob> {
    const version = isUuid(id) ? await templates.getTemplateVersionById(this.db, id) : undefined;
    if (!version) throw new NotFoundError('template version');
    this.require('read', await versionRbac(this.db, version));
    const job = await jobs.getJobById(this.db, version.job_id);
    if (!job) throw new NotFoundError('provisioner job');
    return { version, job };
  }

  /** A version of a readable template by name, case-insensitively, with its job. */
  async getByName(template: templates.TemplateRow, name: string): Promise<VersionWithJob> {
    this.require('read', templateRbac(template));
    const version = await templates.getTemplateVersionByName(this.db, template.id, name);
    if (!version) throw new NotFoundError('template version');
    return (await this.#withJobs([version]))[0] ?? notFound('provisioner job');
  }

  /** The version of a readable template made just before `version`, if any. */
  async getPrevious(template: templates.TemplateRow, version: templates.TemplateVersionRow): Promise<VersionWithJob | undefined> {
    this.require('read', templateRbac(template));
    const previous = await templates.previousTemplateVersion(this.db, template.id, version.created_at);
    return previous ? (await this.#withJobs([previous]))[0] : undefined;
  }

  /** The versions of a readable template, oldest first, with their jobs. */
  async list(template: templates.TemplateRow): Promise<VersionWithJob[]> {
    this.require('read', templateRbac(template));
    return this.#withJobs(await templates.listTemplateVersions(this.db, template.id));
  }

  /**
   * A page of a readable template's versions, oldest first, with their jobs; filtered and paged in
   * SQL. `missing-after` when the version to start after is not in the list.
   */
  async page(template: templates.TemplateRow, page: templates.TemplateVersionPage): Promise<VersionWithJob[] | 'missing-after'> {
    this.require('read', templateRbac(template));
    const versions = await templates.pageTemplateVersions(this.db, this.store.dialect, template.id, page);
    return versions === 'missing-after' ? versions : this.#withJobs(versions);
  }

  /** The public fields (username, avatar) of the creators of readable versions. */
  async creators(
    versions: readonly templates.TemplateVersionRow[],
  ): Promise<Map<string, { readonly id: string; readonly username: string; readonly avatar_url: string }>> {
    for (const rbac of await versionsRbac(this.db, versions)) this.require('read', rbac);
    return templates.versionCreators(
      this.db,
      versions.map((version) => version.created_by),
    );
  }

  /** Renames, re-describes or (un)archives a version; needs `update` on its template. */
  async update(
    version: templates.TemplateVersionRow,
    changes: Partial<Pick<templates.TemplateVersionRow, 'name' | 'message' | 'archived'>>,
  ): Promise<void> {
    this.require('update', await versionRbac(this.db, version));
    await this.audited(
      async (trx) => {
        await withConflicts(() => templates.updateTemplateVersion(trx, version.id, { ...changes, updated_at: this.store.nowIso() }));
        return (await templates.getTemplateVersionById(trx, version.id)) ?? { ...version, ...changes };
      },
      (updated) => versionChange('write', version, updated),
    );
  }

  /**
   * Asks a version's job to stop: a job no live daemon holds ends at once, a running one is
   * `canceling` until its daemon reports. Needs `update` on the version's template.
   */
  async cancelJob(
    version: templates.TemplateVersionRow,
    job: jobs.ProvisionerJobRow,
    cancellation: jobs.JobCancellation,
  ): Promise<jobs.ProvisionerJobRow> {
    this.require('update', await versionRbac(this.db, version));
    return cancelAuthorizedJob(this.store, this.db, job, cancellation);
  }

  /** The resources a version's import found (start and stop), or a dry run's, by name. */
  async jobResources(version: templates.TemplateVersionRow, jobId: string): Promise<jobs.WorkspaceResourceRow[]> {
    this.require('read', await versionRbac(this.db, version));
    return jobs.listResourcesOfJobs(this.db, [jobId]);
  }

  /** Log lines of a job of a readable version. */
  async jobLogs(
    version: templates.TemplateVersionRow,
    jobId: string,
    range: { after?: number | undefined; before?: number | undefined },
  ): Promise<jobs.ProvisionerJobLogRow[]> {
    this.require('read', await versionRbac(this.db, version));
    return jobs.listJobLogs(this.db, jobId, range);
  }

  /**
   * Queues a dry run of a version for the subject: planning a workspace of their own needs the
   * right to create one in the version's organization.
   */
  async insertDryRunJob(version: templates.TemplateVersionRow, job: jobs.ProvisionerJobRow): Promise<void> {
    this.require('read', await versionRbac(this.db, version));
    this.require('create', orgScoped('workspace', version.organization_id, this.subject.id));
    await jobs.insertJob(this.db, job);
  }

  /** A dry run of a readable version, started by a user whose workspaces the subject may read. */
  async getDryRunJob(version: templates.TemplateVersionRow, jobId: string): Promise<jobs.ProvisionerJobRow> {
    this.require('read', await versionRbac(this.db, version));
    const job = isUuid(jobId) ? await jobs.getJobById(this.db, jobId) : undefined;
    if (
      !job ||
      job.type !== 'template_version_dry_run' ||
      parseJson<{ template_version_id?: string }>(job.input, {}).template_version_id !== version.id
    ) {
      throw new NotFoundError('provisioner job');
    }
    this.require('read', orgScoped('workspace', job.organization_id, job.initiator_id));
    return job;
  }

  /** Cancels a dry run the subject may read and could have started. */
  async cancelDryRunJob(job: jobs.ProvisionerJobRow, cancellation: jobs.JobCancellation): Promise<jobs.ProvisionerJobRow> {
    this.require('update', orgScoped('workspace', job.organization_id, job.initiator_id));
    return cancelAuthorizedJob(this.store, this.db, job, cancellation);
  }

  async #withJobs(versions: readonly templates.TemplateVersionRow[]): Promise<VersionWithJob[]> {
    const byId = new Map(
      (
        await jobs.getJobsByIds(
          this.db,
          versions.map((v) => v.job_id),
        )
      ).map((job) => [job.id, job]),
    );
    return versions.flatMap((version) => {
      const job = byId.get(version.job_id);
      return job ? [{ version, job }] : [];
    });
  }
}

/**
 * A version's audit entry. What its import found (variables with their defaults, parameters,
 * presets) may hold values a template admin keeps to themselves, and never changes: left out.
 */
function versionChange(action: string, before: templates.TemplateVersionRow | undefined, after: templates.TemplateVersionRow): AuditChange {
  const tracked = (row: templates.TemplateVersionRow) => ({
    id: row.id,
    template_id: row.template_id,
    name: row.name,
    message: row.message,
    readme: row.readme,
    created_by: row.created_by,
    archived: row.archived === 1,
  });
  return {
    resourceType: 'template_version',
    action,
    resourceId: after.id,
    resourceTarget: after.name,
    organizationId: after.organization_id,
    old: before && tracked(before),
    new: tracked(after),
  };
}
