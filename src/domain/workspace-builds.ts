import { ConflictError, forbiddenProblem, HttpProblem, isNotFoundOrHidden, NotAuthorizedError, NotFoundError } from '../lib/errors.js';
import { newId } from '../lib/random.js';
import type { NameValue, RichParameter, WorkspaceTransition as Transition } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import { parseJson } from '../store/json-column.js';
import { insertedJob } from '../store/rows.js';
import type { PubSub } from '../store/pubsub.js';
import { templateRbac } from '../store/rbac-objects.js';
import type {
  BuildInsert,
  NewBuildReads,
  OrganizationQueue,
  OrganizationRow,
  ProvisionerJobRow,
  TemplateRow,
  TemplateVersionRow,
  UserRow,
  WorkspaceBuildRow,
  WorkspaceRow,
} from '../store/rows.js';
import { refuseUnlinkedProviders, type ExternalAuthSettings } from './external-auth/required-providers.js';
import { resolveBuildParameters } from './build-parameters.js';
import { nameProblem, ruleDetail } from './names.js';
import { JOB_POSTED_CHANNEL } from './provisioner-events.js';
import { jobStatus, type JobStatus } from './provisioner-job-status.js';
import { normalizeTags } from './provisioner-tags.js';
import { validateTtlMs } from './schedule/index.js';
import { workspaceEventsChannel } from './workspace-events.js';
import { refuseOverBudget } from './workspace-quota.js';

/** What a build is doing, from its job's status and its transition, as the reference's table says. */
export type BuildStatus =
  'pending' | 'starting' | 'running' | 'stopping' | 'stopped' | 'deleting' | 'deleted' | 'canceling' | 'canceled' | 'failed';

export function buildStatus(status: JobStatus, transition: string): BuildStatus {
  switch (status) {
    case 'pending':
    case 'canceling':
    case 'canceled':
    case 'failed':
      return status;
    case 'running':
      return transition === 'start' ? 'starting' : transition === 'stop' ? 'stopping' : 'deleting';
    case 'succeeded':
      return transition === 'start' ? 'running' : transition === 'stop' ? 'stopped' : 'deleted';
  }
}

/** Checks a requested time-to-shutdown and truncates it to whole minutes; null when off. */
export function checkTtl(ttlMs: number | null | undefined): number | null {
  try {
    return validateTtlMs(ttlMs);
  } catch (error) {
    throw new HttpProblem(400, 'Invalid Workspace Time to Shutdown.', {
      validations: [{ field: 'ttl_ms', detail: (error as Error).message }],
    });
  }
}

/** The body of a workspace creation. */
export interface CreateWorkspaceInput {
  readonly name: string;
  readonly template_id?: string | undefined;
  readonly template_version_id?: string | undefined;
  readonly template_version_preset_id?: string | undefined;
  readonly autostart_schedule?: string | undefined;
  readonly ttl_ms?: number | undefined;
  readonly automatic_updates?: string | undefined;
  readonly rich_parameter_values?: readonly NameValue[] | undefined;
}

/** Checks an autostart schedule; the schedule rules plug in here. */
export type ScheduleCheck = (schedule: string) => string | undefined;

/** Who a new workspace is for and how its request is judged. */
export interface NewWorkspace {
  readonly owner: UserRow;
  /** The organization the path named, if any: the template must belong to it. */
  readonly organizationId: string | undefined;
  readonly input: CreateWorkspaceInput;
  readonly checkSchedule: ScheduleCheck;
  readonly now: Date;
  /** The deployment's external auth providers: a version requiring one the owner has not linked is refused. */
  readonly externalAuth?: ExternalAuthSettings | undefined;
}

/** What creating a workspace wrote, and the template it came from: enough to answer without reading it back. */
export interface CreatedWorkspace {
  readonly workspace: WorkspaceRow;
  readonly build: WorkspaceBuildRow;
  readonly job: ProvisionerJobRow;
  readonly template: TemplateRow;
  readonly version: TemplateVersionRow;
  /** The template's organization, when it was read with the template (and the caller may read it). */
  readonly organization: OrganizationRow | undefined;
  /** The organization's daemons and queue, the new job in it, when read with the insert. */
  readonly queue: OrganizationQueue | undefined;
}

/**
 * Creates a workspace and queues its first (start) build, in one transaction: the reference's
 * checks in its order, parameters validated against the version, and the version's import done.
 */
export async function createWorkspace(store: AuthorizedStore, events: PubSub, request: NewWorkspace): Promise<CreatedWorkspace> {
  const { owner, organizationId, input, checkSchedule, now } = request;
  const problem = nameProblem(input.name);
  if (problem)
    throw new HttpProblem(400, 'Validation failed.', {
      validations: [{ field: 'name', detail: `${ruleDetail('workspace_name', input.name)}: ${problem}` }],
    });
  if (Boolean(input.template_id) === Boolean(input.template_version_id)) {
    const detail = 'exactly one of template_id and template_version_id must be given';
    throw new HttpProblem(400, 'Validation failed.', {
      detail,
      validations: [
        { field: 'template_id', detail },
        { field: 'template_version_id', detail },
      ],
    });
  }
  const { template, version, job: importJob, organization } = await resolveTemplate(store, input);
  if (organizationId !== undefined && template.organization_id !== organizationId) {
    throw new HttpProblem(400, `Template "${template.name}" is not in this organization.`, {
      validations: [{ field: 'template_id', detail: 'belongs to another organization' }],
    });
  }
  const grant = grantCreation(store, owner, template);
  if (template.deprecation_message) {
    throw new HttpProblem(400, `Template "${template.name}" has been deprecated, and cannot be used to create a new workspace.`, {
      detail: template.deprecation_message,
    });
  }
  const schedule = input.autostart_schedule?.trim() ? input.autostart_schedule.trim() : null;
  if (schedule) {
    const scheduleProblem = checkSchedule(schedule);
    if (scheduleProblem)
      throw new HttpProblem(400, 'Invalid Autostart Schedule.', { validations: [{ field: 'schedule', detail: scheduleProblem }] });
  }
  const requestedTtl = checkTtl(input.ttl_ms);
  const automaticUpdates = input.automatic_updates || 'never';
  if (automaticUpdates !== 'always' && automaticUpdates !== 'never') {
    throw new HttpProblem(400, 'Invalid automatic updates value.', {
      validations: [{ field: 'automatic_updates', detail: 'must be always or never' }],
    });
  }
  checkImported(version, importJob);
  if (request.externalAuth) await refuseUnlinkedProviders(store, request.externalAuth, owner.id, version.external_auth, now);
  const parameters = resolveBuildParameters(
    parseJson<RichParameter[]>(version.parameters, []),
    withPreset(version, input.template_version_preset_id, input.rich_parameter_values ?? []),
    undefined,
  );

  const iso = now.toISOString();
  const ttl = requestedTtl ?? (template.default_ttl_ms || null);
  const workspace: WorkspaceRow = {
    id: newId(),
    organization_id: template.organization_id,
    owner_id: owner.id,
    template_id: template.id,
    name: input.name,
    created_at: iso,
    updated_at: iso,
    deleted: 0,
    autostart_schedule: schedule,
    ttl_ms: ttl,
    last_used_at: iso,
    dormant_at: null,
    deleting_at: null,
    automatic_updates: automaticUpdates,
    favorite: 0,
    latest_build_status: null,
    user_acl: '{}',
    group_acl: '{}',
  };
  const first = buildInsert({
    workspace,
    transition: 'start',
    version,
    importJob,
    buildNumber: 1,
    initiatorId: store.subject.id,
    reason: 'initiator',
    parameters,
    state: null,
    orphan: false,
    presetId: input.template_version_preset_id ?? null,
    at: iso,
  });
  // Written with its first build's status, the row is not written again by the trigger that keeps it.
  workspace.latest_build_status = buildStatus(jobStatus(first.job), first.build.transition);
  await refuseOverBudget(store, workspace, importJob.id, 0);
  let queue: OrganizationQueue | undefined;
  try {
    queue = await store.workspaces.insert(grant, workspace, first);
  } catch (error) {
    if (error instanceof ConflictError) {
      throw new HttpProblem(409, `Workspace "${input.name}" already exists.`, {
        validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      });
    }
    throw error;
  }
  await events.publish(JOB_POSTED_CHANNEL, workspace.organization_id);
  return { workspace, build: first.build, job: first.job, template, version, organization, queue };
}

/** The store's one decision on creating the workspace, with the reference's wording for each refusal. */
function grantCreation(store: AuthorizedStore, owner: UserRow, template: TemplateRow) {
  try {
    return store.workspaces.grantCreation(owner.id, template);
  } catch (error) {
    if (error instanceof NotAuthorizedError && error.action === 'use')
      throw new HttpProblem(403, `Unauthorized access to use the template "${template.name}".`);
    if (error instanceof NotAuthorizedError) throw new HttpProblem(403, 'Unauthorized to create workspace.');
    throw error;
  }
}

/** The preset's values, with those given explicitly taking precedence. */
function withPreset(version: TemplateVersionRow, presetId: string | undefined, given: readonly NameValue[]): NameValue[] {
  if (!presetId) return [...given];
  const preset = parseJson<{ id: string; parameters: NameValue[] }[]>(version.presets, []).find((p) => p.id === presetId);
  if (!preset) {
    throw new HttpProblem(400, `Preset "${presetId}" does not belong to the template version.`, {
      validations: [{ field: 'template_version_preset_id', detail: 'not a preset of this version' }],
    });
  }
  const explicit = new Set(given.map((entry) => entry.name));
  return [...preset.parameters.filter((entry) => !explicit.has(entry.name)), ...given];
}

async function resolveTemplate(
  store: AuthorizedStore,
  input: CreateWorkspaceInput,
): Promise<{ template: TemplateRow; version: TemplateVersionRow; job: ProvisionerJobRow; organization: OrganizationRow | undefined }> {
  if (input.template_version_id) {
    const found = await store.templateVersions.get(input.template_version_id).catch((error: unknown) => {
      if (isNotFoundOrHidden(error)) {
        throw new HttpProblem(400, `Template version "${input.template_version_id}" doesn't exist.`, {
          validations: [{ field: 'template_version_id', detail: 'not found' }],
        });
      }
      throw error;
    });
    if (found.version.archived)
      throw new HttpProblem(400, 'Archived template versions cannot be used to make a workspace.', {
        validations: [{ field: 'template_version_id', detail: 'archived' }],
      });
    if (!found.version.template_id)
      throw new HttpProblem(400, 'The template version belongs to no template yet.', {
        validations: [{ field: 'template_version_id', detail: 'not part of a template' }],
      });
    const template = await store.templates.get(found.version.template_id);
    return { template, ...found, organization: undefined };
  }
  return store.templates.getWithVersion(input.template_id ?? '').catch((error: unknown) => {
    // The template missing or hidden; its active version or job missing is the server's own problem.
    if ((error instanceof NotFoundError && error.what === 'template') || error instanceof NotAuthorizedError) {
      throw new HttpProblem(400, `Template "${input.template_id}" doesn't exist.`, {
        validations: [{ field: 'template_id', detail: 'not found' }],
      });
    }
    throw error;
  });
}

function checkImported(version: TemplateVersionRow, job: ProvisionerJobRow): void {
  const status = jobStatus(job);
  if (status === 'pending' || status === 'running') {
    throw new HttpProblem(406, `The provided template version is ${status}. Wait for it to complete importing!`);
  }
  if (status !== 'succeeded') {
    throw new HttpProblem(
      400,
      `The provided template version "${version.name}" has failed to import: "${job.error}". You cannot build workspaces with it!`,
    );
  }
}

/**
 * Everything a new build is made of. The API (new workspace, new build), the schedule executor and
 * autobuild all build through one of these, and the store inserts what it makes in one transaction.
 */
export interface BuildRequest {
  readonly workspace: WorkspaceRow;
  readonly transition: Transition;
  readonly version: TemplateVersionRow;
  /** The version's import job: the new job runs the same provisioner on the same files and tags. */
  readonly importJob: ProvisionerJobRow;
  readonly buildNumber: number;
  /** Whom the build is recorded as started by: the caller, or the owner for the executor's builds. */
  readonly initiatorId: string;
  readonly reason: string;
  readonly parameters: readonly NameValue[];
  /** The provisioner state the build starts from; null for a first build or an orphan delete. */
  readonly state: Buffer | null;
  /** A delete that destroys nothing: its job is done at once and the workspace gone. */
  readonly orphan: boolean;
  readonly presetId: string | null;
  /** The provisioner's log level when the build asked for more than info (`debug`); kept in the job's input. */
  readonly logLevel?: string | undefined;
  /** When the build is made (ISO). */
  readonly at: string;
}

/** The rows a build request becomes: the build and its queued provisioner job. */
export function buildInsert(request: BuildRequest): BuildInsert {
  const { workspace, importJob, at } = request;
  const buildId = newId();
  const job: ProvisionerJobRow = {
    id: newId(),
    organization_id: workspace.organization_id,
    type: 'workspace_build',
    provisioner: importJob.provisioner,
    storage_method: 'file',
    file_id: importJob.file_id,
    initiator_id: request.initiatorId,
    input: JSON.stringify({ workspace_build_id: buildId, ...(request.logLevel ? { log_level: request.logLevel } : {}) }),
    tags: JSON.stringify(normalizeTags(workspace.owner_id, parseJson<Record<string, string>>(importJob.tags, {}))),
    created_at: at,
    updated_at: at,
    started_at: null,
    completed_at: null,
    canceled_at: null,
    error: '',
    error_code: '',
    worker_id: null,
  };
  const build: WorkspaceBuildRow = {
    id: buildId,
    workspace_id: workspace.id,
    template_version_id: request.version.id,
    build_number: request.buildNumber,
    transition: request.transition,
    initiator_id: request.initiatorId,
    job_id: job.id,
    reason: request.reason,
    provisioner_state: request.state,
    deadline: null,
    max_deadline: null,
    daily_cost: 0,
    rich_parameter_values: JSON.stringify(request.parameters),
    template_version_preset_id: request.presetId,
    created_at: at,
    updated_at: at,
  };
  return { build, job, orphan: request.orphan };
}

/** What queuing a build wrote, and what it was made from: enough to answer without reading it back. */
export interface CreatedBuild {
  readonly build: WorkspaceBuildRow;
  readonly job: ProvisionerJobRow;
  readonly template: TemplateRow;
  readonly version: TemplateVersionRow;
  /** The rest of what the answer shows, read with the insert when the caller may read the workspace. */
  readonly reads: NewBuildReads | undefined;
}

/** The body of a new build. */
export interface CreateBuildInput {
  readonly transition: string;
  readonly template_version_id?: string | undefined;
  readonly rich_parameter_values?: readonly NameValue[] | undefined;
  readonly orphan?: boolean | undefined;
  readonly log_level?: string | undefined;
  readonly reason?: string | undefined;
  /** Whom the build is recorded as started by, when not the caller (the executor builds for owners). */
  readonly initiatorId?: string | undefined;
  /** Provisioner state to build from instead of the latest build's, base64-encoded (`cove state push`). */
  readonly state?: string | undefined;
}

const TRANSITIONS: readonly string[] = ['start', 'stop', 'delete'] satisfies readonly Transition[];

/**
 * Queues a build of an existing workspace: start, stop or delete, on the version of the latest
 * build unless another is given. A build while another is active is a 409.
 */
export async function createBuild(
  store: AuthorizedStore,
  events: PubSub,
  workspace: WorkspaceRow,
  input: CreateBuildInput,
  now: Date,
): Promise<CreatedBuild> {
  if (!TRANSITIONS.includes(input.transition)) throw new HttpProblem(400, `Transition "${input.transition}" not supported.`);
  const transition = input.transition as Transition;
  const grant = grantBuild(store, workspace, transition);
  if (input.orphan && transition !== 'delete') throw new HttpProblem(400, 'Orphan is only permitted when deleting a workspace.');
  if (input.log_level && !store.can('read', { type: 'deployment_config' })) {
    throw new HttpProblem(400, 'Workspace builds with a custom log level are restricted to administrators only.');
  }
  const latest = await store.workspaceBuilds.getLatest(workspace);
  if (!latest) throw new HttpProblem(400, 'The workspace has no build to continue from.');
  const previous = latest.build;
  if (['pending', 'running', 'canceling'].includes(jobStatus(latest.job)))
    throw new HttpProblem(409, 'A workspace build is already active.');

  // Undefined: the template's active version, read with it.
  const named =
    transition === 'start' && !input.template_version_id && workspace.automatic_updates === 'always'
      ? undefined
      : (input.template_version_id ?? previous.template_version_id);
  const { template, ...found } = await templateWithBuildVersion(store, workspace.template_id, named);
  const versionId = found.version.id;
  if (
    transition === 'start' &&
    template.require_active_version === 1 &&
    versionId !== template.active_version_id &&
    !store.can('update', templateRbac(template))
  ) {
    throw new HttpProblem(403, 'The template requires the active version; this build would use another.', {
      detail: `Start the workspace on version ${template.active_version_id}.`,
    });
  }
  if (input.orphan && !store.can('update', templateRbac(template))) throw forbiddenProblem();
  // The state describes the template's infrastructure: only those who manage the template may replace it.
  if (input.state !== undefined && !store.can('update', templateRbac(template)))
    throw new HttpProblem(403, 'Only template managers may provide custom state.');
  checkImported(found.version, found.job);
  const parameters =
    transition === 'start'
      ? resolveBuildParameters(
          parseJson<RichParameter[]>(found.version.parameters, []),
          input.rich_parameter_values ?? [],
          parseJson<NameValue[]>(previous.rich_parameter_values, []),
        )
      : parseJson<NameValue[]>(previous.rich_parameter_values, []);
  const insert = buildInsert({
    workspace,
    transition,
    version: found.version,
    importJob: found.job,
    buildNumber: previous.build_number + 1,
    initiatorId: input.initiatorId ?? store.subject.id,
    reason: input.reason ?? 'initiator',
    parameters,
    state: input.orphan ? null : input.state !== undefined ? Buffer.from(input.state, 'base64') : previous.provisioner_state,
    orphan: input.orphan === true,
    presetId: null,
    logLevel: input.log_level,
    at: now.toISOString(),
  });
  if (transition === 'start') await refuseOverBudget(store, workspace, found.job.id, previous.daily_cost);
  let reads: NewBuildReads | undefined;
  try {
    reads = await store.workspaceBuilds.insert(grant, insert);
  } catch (error) {
    if (error instanceof ConflictError) throw new HttpProblem(409, 'A workspace build is already active.');
    throw error;
  }
  await events.publish(JOB_POSTED_CHANNEL, workspace.organization_id);
  await events.publish(workspaceEventsChannel(workspace.id), 'build');
  return { build: insert.build, job: insertedJob(insert), template, version: found.version, reads };
}

/**
 * The workspace's template with the version a build uses, read together; refusals in the
 * reference's words. Only a version that is not the template's takes a second read, to tell a
 * version of another template (that the caller may see) from one that does not exist.
 */
async function templateWithBuildVersion(store: AuthorizedStore, templateId: string, versionId: string | undefined) {
  try {
    return await store.templates.getWithVersion(templateId, versionId);
  } catch (error) {
    if (error instanceof NotAuthorizedError || (error instanceof NotFoundError && error.what === 'template')) {
      throw new HttpProblem(400, 'The workspace template no longer exists.');
    }
    if (!(error instanceof NotFoundError)) throw error;
    const elsewhere = versionId === undefined ? undefined : await store.templateVersions.get(versionId).catch(() => undefined);
    if (elsewhere) throw new HttpProblem(400, "template version doesn't match template");
    throw new HttpProblem(400, 'template version does not exist');
  }
}

/** The store's one decision on the build, with the reference's wording for a refusal. */
function grantBuild(store: AuthorizedStore, workspace: WorkspaceRow, transition: Transition) {
  try {
    return store.workspaceBuilds.grant(workspace, transition);
  } catch (error) {
    if (error instanceof NotAuthorizedError) throw new HttpProblem(403, `You do not have permission to ${transition} this workspace.`);
    throw error;
  }
}
