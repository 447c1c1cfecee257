import { StoreFamily } from './store-family.js';
import { versionRbac, versionsRbac } from './version-rbac.js';
import { templateRbac, workspaceRbac } from '../rbac-objects.js';
import { parseJson } from '../json-column.js';
import { fileObject, orgScoped, siteObject, userObject } from '../../rbac/index.js';
import { isUuid } from '../../lib/random.js';
import { NotAuthorizedError, NotFoundError } from '../../lib/errors.js';
import * as jobs from '../queries/provisioner-jobs.js';
import * as jobCompletion from '../queries/job-completion.js';
import * as templates from '../queries/templates.js';
import * as workspaces from '../queries/workspaces.js';

/** Reads the logs of one job for a stream that was authorized when it opened. */
export interface JobLogReader {
  /** Log lines with ids above `after`, in order. */
  logsAfter(after: number): Promise<jobs.ProvisionerJobLogRow[]>;
  /** Whether the job has finished (or is gone). */
  finished(): Promise<boolean>;
}

/** Provisioner jobs: reading, claiming, completing and reaping them. */
export class ProvisionerJobStore extends StoreFamily {
  /** One job of an organization; only those who may read the organization's jobs see it. */
  async get(organizationId: string, jobId: string): Promise<jobs.ProvisionerJobRow> {
    const job = isUuid(jobId) ? await jobs.getJobById(this.db, jobId) : undefined;
    if (!job || job.organization_id !== organizationId) throw new NotFoundError('provisioner job');
    this.require('read', orgScoped('provisioner_jobs', organizationId));
    return job;
  }

  /** Jobs of an organization that pass the filter, newest first; filtered and limited in SQL. */
  async list(organizationId: string, filter: jobs.JobListFilter): Promise<jobs.ProvisionerJobRow[]> {
    this.require('read', orgScoped('provisioner_jobs', organizationId));
    return jobs.listJobs(this.db, this.store.dialect, organizationId, filter);
  }

  /**
   * What answers for readable jobs show besides their rows: the daemons of their organizations,
   * the queues (for positions) and the templates of their versions, in a fixed number of queries.
   * Builds and versions the caller has read already (`known`) are not read again.
   */
  async relations(rows: readonly jobs.ProvisionerJobRow[], known?: jobs.KnownJobRelations): Promise<jobs.JobRelations> {
    await this.#requireJobs('read', rows);
    return jobs.jobRelations(this.db, this.store.dialect, rows, known);
  }

  /**
   * Follows the logs of a job the subject may read (through its template version or workspace),
   * authorized once: the reader it returns serves one log stream.
   */
  async followLogs(jobId: string): Promise<JobLogReader> {
    const job = isUuid(jobId) ? await jobs.getJobById(this.db, jobId) : undefined;
    if (!job) throw new NotFoundError('provisioner job');
    await this.#requireJobs('read', [job]);
    const db = this.db;
    return {
      logsAfter: async (after) => jobs.listJobLogs(db, job.id, { after }),
      finished: async () => {
        const now = await jobs.getJobById(db, job.id);
        return !now || now.completed_at !== null;
      },
    };
  }

  /**
   * Throws unless the subject may act on every job: those who may on the organization's jobs may
   * on all of them; others through the job's template version (imports, dry runs) or workspace
   * (builds). The parents are read in at most three queries.
   */
  async #requireJobs(action: 'read' | 'update', rows: readonly jobs.ProvisionerJobRow[]): Promise<void> {
    const rest = rows.filter((row) => !this.can(action, orgScoped('provisioner_jobs', row.organization_id)));
    if (rest.length === 0) return;
    const builds = rest.filter((row) => row.type === 'workspace_build');
    const versionJobs = rest.filter((row) => row.type !== 'workspace_build');
    if (builds.length > 0) {
      const byJob = await jobCompletion.workspacesOfBuildJobs(
        this.db,
        builds.map((row) => row.id),
      );
      for (const row of builds) {
        const workspace = byJob.get(row.id);
        if (!workspace) throw new NotFoundError('provisioner job');
        this.require(action, workspaceRbac(workspace));
      }
    }
    if (versionJobs.length > 0) {
      // An import is its version's job; a dry run names the version it plans.
      const dryRunVersionIds = versionJobs.map((row) =>
        row.type === 'template_version_dry_run'
          ? (parseJson<{ template_version_id?: string }>(row.input, {}).template_version_id ?? '')
          : '',
      );
      const versions = await templates.versionsOfJobs(
        this.db,
        versionJobs.map((row) => row.id),
        dryRunVersionIds.filter((id) => id !== ''),
      );
      const rbacs = await versionsRbac(this.db, versions);
      const byJob = new Map(versions.map((version, index) => [version.job_id, rbacs[index]]));
      const byId = new Map(versions.map((version, index) => [version.id, rbacs[index]]));
      for (const [index, row] of versionJobs.entries()) {
        const rbac = row.type === 'template_version_dry_run' ? byId.get(dryRunVersionIds[index] ?? '') : byJob.get(row.id);
        if (!rbac) throw new NotFoundError('provisioner job');
        this.require(action, rbac);
        // A dry run plans a workspace of its initiator's: only those who may read such a workspace see it.
        if (row.type === 'template_version_dry_run') this.require('read', orgScoped('workspace', row.organization_id, row.initiator_id));
      }
    }
  }

  /**
   * Claims the oldest queued job of the organization that `taker` may run, and reads it with what
   * running it needs (as getWithContext with `run`); undefined when there is none.
   */
  async claimNext(organizationId: string, taker: jobs.JobTaker): Promise<jobCompletion.JobWithContext | undefined> {
    this.require('update', orgScoped('provisioner_jobs', organizationId));
    const claim = jobs.claimStatement(this.db, this.store.dialect, organizationId, taker, this.store.nowIso());
    const claimed = claim && (await jobCompletion.claimJobToRun(this.db, this.store.dialect, claim));
    if (claimed) this.#authorizeJobContext(claimed);
    return claimed;
  }

  /**
   * A job of the organization with what running it (`run`) or recording its completion
   * (`record`) needs, read together. Each part is authorized as reading it alone would be.
   */
  async getWithContext(
    organizationId: string,
    jobId: string,
    purpose: jobCompletion.JobContextPurpose,
  ): Promise<jobCompletion.JobWithContext> {
    const found = isUuid(jobId) ? await jobCompletion.readJobWithContext(this.db, jobId, purpose) : undefined;
    if (!found || found.job.organization_id !== organizationId) throw new NotFoundError('provisioner job');
    this.#authorizeJobContext(found);
    return found;
  }

  /** Reading a job with its context is reading each part. */
  #authorizeJobContext({ job, context }: jobCompletion.JobWithContext): void {
    this.require('read', orgScoped('provisioner_jobs', job.organization_id));
    if (context.file) this.require('read', fileObject(context.file.created_by, context.file.id));
    if (context.initiatorUsername !== undefined) this.require('read', userObject(job.initiator_id));
    const workspace = context.build?.workspace;
    if (workspace) this.require('read', workspaceRbac(workspace));
    if (context.build?.template) this.require('read', templateRbac(context.build.template));
  }

  /** The workspace a build job belongs to, or undefined for other jobs. */
  async workspaceIdOf(job: jobs.ProvisionerJobRow): Promise<string | undefined> {
    this.require('read', orgScoped('provisioner_jobs', job.organization_id));
    return jobCompletion.workspaceIdOfJob(this.db, job.id);
  }

  /** Appends log lines to a running job and marks it as heard from. */
  async appendLogs(job: jobs.ProvisionerJobRow, logs: readonly jobs.JobLogLine[]): Promise<void> {
    this.require('update', orgScoped('provisioner_jobs', job.organization_id));
    await jobs.appendJobLogs(this.db, this.store.dialect, job.id, logs, this.store.nowIso());
  }

  /**
   * Stores what a finished job found and marks it completed, all or nothing, if `expected` holds
   * (see CompletionExpectation); resolves with whether it did. What is stored is `complete(now)`,
   * made once the statement has its connection, so that the job's `completed_at` is when its end
   * is written, not when it began waiting for a connection. Writing an import's results needs
   * `update` on the version's template; a build's, `update` (or, for a delete build, `delete`) on
   * its workspace, as `workspace` has it, which the expectation then includes. The other replicas'
   * agent-token invalidation is on its way (`announced`), for the caller to await with its own events.
   */
  async complete(
    job: jobs.ProvisionerJobRow,
    complete: (now: string) => jobCompletion.JobCompletion,
    workspace: workspaces.WorkspaceRow | undefined,
    expected: jobCompletion.CompletionExpectation,
  ): Promise<{ readonly stored: boolean; readonly announced: Promise<void> }> {
    this.require('update', orgScoped('provisioner_jobs', job.organization_id));
    // Decided before the connection is held: deciding reads on a connection of its own.
    const writesVersion = job.type === 'template_version_import';
    if (writesVersion) {
      const [version] = await templates.versionsOfJobs(this.db, [job.id], []);
      if (version) this.require('update', await versionRbac(this.db, version));
    }
    return this.db.connection().execute(async (db) => {
      const completion = complete(this.store.nowIso());
      if (completion.version && !writesVersion) throw new NotAuthorizedError('update', 'template');
      let authorizedOn = expected;
      if (completion.build) {
        if (!workspace || workspace.id !== completion.build.workspaceId) throw new NotFoundError('workspace');
        this.require(completion.build.deletesWorkspace ? 'delete' : 'update', workspaceRbac(workspace));
        // Dormancy makes a workspace another object to the policy: the decision holds while it is unchanged.
        const values = { ...expected.workspace?.values, dormant_at: workspace.dormant_at };
        authorizedOn = { ...expected, workspace: { id: workspace.id, values } };
      }
      const store = async () => {
        const stored = await jobCompletion.storeJobCompletion(db, this.store.dialect, job.id, completion, authorizedOn);
        // A finished build is one more build time, and a delete one user fewer, for the template's figures.
        if (stored && workspace) this.store.templateStatistics.invalidate(workspace.template_id);
        return stored;
      };
      // A finished build decides whose agents are current. An import's agents are not any
      // workspace's, but a token names its newest agent, which they may now be.
      const target = completion.build ? { workspaceId: completion.build.workspaceId } : completion.agents.length > 0 ? '*' : undefined;
      if (!target) return { stored: await store(), announced: Promise.resolve() };
      const { value: stored, announced } = await this.store.changingAgentAuthsAnnouncing(target, store);
      return { stored, announced };
    });
  }

  /**
   * Ends a job that has not finished with an error (or none, for a cancel that was asked for).
   * A failed build's state is kept when given, so the next build can clean up. Returns whether
   * the job was still open.
   */
  async finish(
    job: jobs.ProvisionerJobRow,
    outcome: { readonly error: string; readonly error_code: string },
    failedBuildState?: Buffer,
  ): Promise<boolean> {
    this.require('update', orgScoped('provisioner_jobs', job.organization_id));
    if (failedBuildState) await jobCompletion.keepFailedBuildState(this.db, job.id, failedBuildState);
    // The end of a stop or delete build's job ends the agents of the build before it.
    return this.store.changingAgentAuths('*', () => jobs.finishJob(this.db, job.id, this.store.nowIso(), outcome));
  }

  /**
   * Jobs of every organization that stopped making progress, oldest update first, each with
   * whether its daemon still counts as alive (for the reaper). Reads daemons to tell.
   */
  async listStalled(cutoffs: jobs.StallCutoffs, live: jobs.DaemonLiveness, limit: number): Promise<jobs.ReapableJob[]> {
    this.require('read', siteObject('provisioner_jobs'));
    this.require('read', siteObject('provisioner_daemon'));
    return jobs.listStalledJobs(this.db, cutoffs, live, limit);
  }

  /**
   * Started, unfinished jobs of every organization held by daemons whose ids begin with
   * `workerIdPrefix`: the built-in daemons of one replica, when it starts again.
   */
  async listOpenOfWorkers(workerIdPrefix: string, limit: number): Promise<jobs.StalledJob[]> {
    this.require('read', siteObject('provisioner_jobs'));
    this.require('read', siteObject('provisioner_daemon'));
    return jobs.listOpenJobsOfWorkers(this.db, workerIdPrefix, limit);
  }

  /**
   * Fails a hung job with `error` and log lines saying why, in the stage it was last in; only if
   * nothing happened to it since it was selected (a late update saves the job). Returns whether
   * it was reaped.
   */
  async reap(
    candidate: Pick<jobs.StalledJob, 'id' | 'started_at' | 'updated_at'>,
    error: string,
    lines: readonly string[],
  ): Promise<boolean> {
    this.require('update', siteObject('provisioner_jobs'));
    const now = this.store.nowIso();
    // As for finish.
    return this.store.changingAgentAuths('*', () =>
      this.db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('provisioner_jobs')
          .set({ completed_at: now, updated_at: now, started_at: candidate.started_at ?? now, error })
          .where('id', '=', candidate.id)
          .where('completed_at', 'is', null)
          .where('updated_at', '=', candidate.updated_at)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) return false;
        const stage = (await jobs.lastLogStage(trx, candidate.id)) ?? 'Unknown';
        await jobs.insertJobLogs(
          trx,
          candidate.id,
          lines.map((output) => ({ created_at: now, source: 'provisioner_daemon', level: 'error', stage, output })),
        );
        return true;
      }),
    );
  }
}
