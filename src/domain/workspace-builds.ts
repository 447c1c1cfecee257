import { ConflictError, forbiddenProblem, HttpProblem, isNotFoundOrHidden, NotFoundError } from '../lib/errors.js';
import { newId } from '../lib/random.js';
import type { NameValue, RichParameter, WorkspaceTransition as Transition } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import { parseJson } from '../store/json-column.js';
import { queuedJob, type ProvisionerJobRow } from '../store/queries/provisioner-jobs.js';
import type { TemplateRow, TemplateVersionRow } from '../store/queries/templates.js';
import type { UserRow } from '../store/queries/users.js';
import { latestBuilds, type WorkspaceBuildRow, type WorkspaceRow } from '../store/queries/workspaces.js';
import type { Store } from '../store/store.js';
import { resolveBuildParameters } from './build-parameters.js';
import { nameProblem, ruleDetail } from './names.js';
import { JOB_POSTED_CHANNEL } from './provisioner-events.js';
import { jobStatus, type JobStatus } from './provisioner-job-status.js';
import { normalizeTags } from './provisioner-tags.js';
import { validateTtlMs } from './schedule/index.js';
import { workspaceEventsChannel } from './workspace-events.js';

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

/**
 * Creates a workspace and queues its first (start) build, in one transaction: the reference's
 * checks in its order, parameters validated against the version, and the version's import done.
 */
// eslint-disable-next-line max-params -- goes away with the build request object (store seam work)
export async function createWorkspace(
  store: AuthorizedStore,
  raw: Store,
  owner: UserRow,
  organizationId: string | undefined,
  input: CreateWorkspaceInput,
  checkSchedule: ScheduleCheck,
  now: Date,
): Promise<WorkspaceRow> {
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
  const { template, version, job: importJob } = await resolveTemplate(store, input);
  if (organizationId !== undefined && template.organization_id !== organizationId) {
    throw new HttpProblem(400, `Template "${template.name}" is not in this organization.`, {
      validations: [{ field: 'template_id', detail: 'belongs to another organization' }],
    });
  }
  if (!store.can('create', { type: 'workspace', org_id: template.organization_id, owner_id: owner.id })) {
    throw new HttpProblem(403, 'Unauthorized to create workspace.');
  }
  if (!store.can('use', templateObjectOf(template)))
    throw new HttpProblem(403, `Unauthorized access to use the template "${template.name}".`);
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
  };
  const { build, job } = newBuild(
    store,
    workspace,
    owner,
    version,
    importJob,
    'start',
    1,
    parameters,
    null,
    'initiator',
    input.template_version_preset_id ?? null,
    iso,
  );
  try {
    await store.insertWorkspace(workspace, build, job, template);
  } catch (error) {
    if (error instanceof ConflictError) {
      throw new HttpProblem(409, `Workspace "${input.name}" already exists.`, {
        validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      });
    }
    throw error;
  }
  await raw.pubsub.publish(JOB_POSTED_CHANNEL, workspace.organization_id);
  return workspace;
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

function templateObjectOf(template: TemplateRow) {
  return {
    type: 'template' as const,
    id: template.id,
    org_id: template.organization_id,
    acl_user_list: parseJson<Record<string, string[]>>(template.user_acl, {}),
    acl_group_list: parseJson<Record<string, string[]>>(template.group_acl, {}),
  };
}

async function resolveTemplate(
  store: AuthorizedStore,
  input: CreateWorkspaceInput,
): Promise<{ template: TemplateRow; version: TemplateVersionRow; job: ProvisionerJobRow }> {
  if (input.template_version_id) {
    const found = await store.getTemplateVersion(input.template_version_id).catch((error: unknown) => {
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
    const template = await store.getTemplate(found.version.template_id);
    return { template, ...found };
  }
  const template = await store.getTemplate(input.template_id ?? '').catch((error: unknown) => {
    if (isNotFoundOrHidden(error)) {
      throw new HttpProblem(400, `Template "${input.template_id}" doesn't exist.`, {
        validations: [{ field: 'template_id', detail: 'not found' }],
      });
    }
    throw error;
  });
  return { template, ...(await store.getTemplateVersion(template.active_version_id)) };
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

// eslint-disable-next-line max-params -- goes away with the build request object (store seam work)
function newBuild(
  store: AuthorizedStore,
  workspace: WorkspaceRow,
  owner: Pick<UserRow, 'id'>,
  version: TemplateVersionRow,
  importJob: ProvisionerJobRow,
  transition: Transition,
  buildNumber: number,
  parameters: readonly NameValue[],
  state: Buffer | null,
  reason: string,
  presetId: string | null,
  iso: string,
  initiatorId: string = store.subject.id,
): { build: WorkspaceBuildRow; job: ProvisionerJobRow } {
  const buildId = newId();
  const job = queuedJob(
    {
      id: newId(),
      organization_id: workspace.organization_id,
      type: 'workspace_build',
      provisioner: importJob.provisioner,
      file_id: importJob.file_id,
      initiator_id: initiatorId,
      input: JSON.stringify({ workspace_build_id: buildId }),
      tags: JSON.stringify(normalizeTags(owner.id, parseJson<Record<string, string>>(importJob.tags, {}))),
    },
    iso,
  );
  const build: WorkspaceBuildRow = {
    id: buildId,
    workspace_id: workspace.id,
    template_version_id: version.id,
    build_number: buildNumber,
    transition,
    initiator_id: initiatorId,
    job_id: job.id,
    reason,
    provisioner_state: state,
    deadline: null,
    max_deadline: null,
    daily_cost: 0,
    rich_parameter_values: JSON.stringify(parameters),
    template_version_preset_id: presetId,
    created_at: iso,
    updated_at: iso,
  };
  return { build, job };
}

/** The body of a new build. */
export interface CreateBuildInput {
  readonly transition: Transition;
  readonly template_version_id?: string | undefined;
  readonly rich_parameter_values?: readonly NameValue[] | undefined;
  readonly orphan?: boolean | undefined;
  readonly log_level?: string | undefined;
  readonly reason?: string | undefined;
  /** Whom the build is recorded as started by, when not the caller (the executor builds for owners). */
  readonly initiatorId?: string | undefined;
}

/**
 * Queues a build of an existing workspace: start, stop or delete, on the version of the latest
 * build unless another is given. A build while another is active is a 409.
 */
export async function createBuild(
  store: AuthorizedStore,
  raw: Store,
  workspace: WorkspaceRow,
  input: CreateBuildInput,
  now: Date,
): Promise<WorkspaceBuildRow> {
  if (!['start', 'stop', 'delete'].includes(input.transition))
    throw new HttpProblem(400, `Transition "${input.transition}" not supported.`);
  if (
    !store.can(input.transition === 'delete' ? 'delete' : 'update', {
      type: workspace.dormant_at ? 'workspace_dormant' : 'workspace',
      id: workspace.id,
      org_id: workspace.organization_id,
      owner_id: workspace.owner_id,
    })
  ) {
    throw new HttpProblem(403, `You do not have permission to ${input.transition} this workspace.`);
  }
  if (input.orphan && input.transition !== 'delete') throw new HttpProblem(400, 'Orphan is only permitted when deleting a workspace.');
  if (input.log_level && !store.can('read', { type: 'deployment_config' })) {
    throw new HttpProblem(400, 'Workspace builds with a custom log level are restricted to administrators only.');
  }
  const previous = (await latestBuilds(raw.db, [workspace.id])).get(workspace.id);
  if (!previous) throw new HttpProblem(400, 'The workspace has no build to continue from.');
  const previousJob = await raw.db.selectFrom('provisioner_jobs').selectAll().where('id', '=', previous.job_id).executeTakeFirstOrThrow();
  if (['pending', 'running', 'canceling'].includes(jobStatus(previousJob)))
    throw new HttpProblem(409, 'A workspace build is already active.');

  const template = await store.getTemplate(workspace.template_id).catch(() => {
    throw new HttpProblem(400, 'The workspace template no longer exists.');
  });
  let versionId = input.template_version_id ?? previous.template_version_id;
  if (input.transition === 'start' && !input.template_version_id && workspace.automatic_updates === 'always')
    versionId = template.active_version_id;
  const found = await store.getTemplateVersion(versionId).catch(() => {
    throw new HttpProblem(400, 'template version does not exist');
  });
  if (found.version.template_id !== template.id) throw new HttpProblem(400, "template version doesn't match template");
  if (
    input.transition === 'start' &&
    template.require_active_version === 1 &&
    versionId !== template.active_version_id &&
    !store.can('update', templateObjectOf(template))
  ) {
    throw new HttpProblem(403, 'The template requires the active version; this build would use another.', {
      detail: `Start the workspace on version ${template.active_version_id}.`,
    });
  }
  if (input.orphan && !store.can('update', templateObjectOf(template))) throw forbiddenProblem();
  checkImported(found.version, found.job);
  const parameters =
    input.transition === 'start'
      ? resolveBuildParameters(
          parseJson<RichParameter[]>(found.version.parameters, []),
          input.rich_parameter_values ?? [],
          parseJson<NameValue[]>(previous.rich_parameter_values, []),
        )
      : parseJson<NameValue[]>(previous.rich_parameter_values, []);
  const owner = { id: workspace.owner_id };
  const { build, job } = newBuild(
    store,
    workspace,
    owner,
    found.version,
    found.job,
    input.transition,
    previous.build_number + 1,
    parameters,
    input.orphan ? null : previous.provisioner_state,
    input.reason ?? 'initiator',
    null,
    now.toISOString(),
    input.initiatorId,
  );
  if (input.orphan) {
    // Nothing is destroyed: the job completes at once and the workspace is gone.
    job.started_at = build.created_at;
  }
  try {
    await store.insertBuild(workspace, build, job);
  } catch (error) {
    if (error instanceof ConflictError) throw new HttpProblem(409, 'A workspace build is already active.');
    throw error;
  }
  if (input.orphan) {
    await raw.db.transaction().execute(async (trx) => {
      await trx.updateTable('provisioner_jobs').set({ completed_at: build.created_at }).where('id', '=', job.id).execute();
      await trx.updateTable('workspaces').set({ deleted: 1, updated_at: build.created_at }).where('id', '=', workspace.id).execute();
    });
  }
  await raw.pubsub.publish(JOB_POSTED_CHANNEL, workspace.organization_id);
  await raw.pubsub.publish(workspaceEventsChannel(workspace.id), 'build');
  return build;
}
