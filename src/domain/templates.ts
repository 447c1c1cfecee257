import { ConflictError, forbiddenProblem, HttpProblem, isNotFoundOrHidden, type FieldValidation } from '../lib/errors.js';
import { newId } from '../lib/random.js';
import type { CreateTemplateRequest, UpdateTemplateMeta } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { TemplateRow, TemplateVersionRow } from '../store/rows.js';
import { jobStatus } from './provisioner-job-status.js';
import { nameProblem, ruleDetail } from './names.js';
import { DEFAULT_MAX_PORT_SHARE_LEVEL } from './port-sharing.js';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** The most weeks between required restarts. */
export const MAX_AUTOSTOP_REQUIREMENT_WEEKS = 16;

/** Template-wide actions the organization's members get unless the creator opts out. */
const EVERYONE_ACTIONS = ['read', 'use'];

/** Weekday names to the stored bitmap (Monday is bit 0); problems are reported per field. */
export function weekdaysToBitmap(days: readonly string[], field: string, problems: FieldValidation[]): number {
  let bitmap = 0;
  for (const day of days) {
    const index = WEEKDAYS.indexOf(day as Weekday);
    if (index < 0) {
      problems.push({ field, detail: `invalid weekday "${day}": use lowercase names such as "monday"` });
      continue;
    }
    if (bitmap & (1 << index)) problems.push({ field, detail: `duplicate weekday "${day}"` });
    bitmap |= 1 << index;
  }
  return bitmap;
}

/** The stored bitmap as weekday names, Monday first. */
export function bitmapToWeekdays(bitmap: number): Weekday[] {
  return WEEKDAYS.filter((_day, index) => (bitmap & (1 << index)) !== 0);
}

function checkDisplayName(value: string | undefined, problems: FieldValidation[]): void {
  if (value === undefined || value === '') return;
  if (value.length > 64 || !/^[^\s](.*[^\s])?$/.test(value))
    problems.push({ field: 'display_name', detail: ruleDetail('template_display_name', value) });
}

type Scheduling = Pick<
  CreateTemplateRequest,
  | 'default_ttl_ms'
  | 'activity_bump_ms'
  | 'failure_ttl_ms'
  | 'time_til_dormant_ms'
  | 'time_til_dormant_autodelete_ms'
  | 'autostop_requirement'
  | 'autostart_requirement'
>;

/** Checks the scheduling fields; returns the stored columns they set. */
function schedulingColumns(input: Scheduling, problems: FieldValidation[], minimumOneMinute: boolean): Partial<TemplateRow> {
  const columns: Partial<TemplateRow> = {};
  const nonNegative = (field: keyof Scheduling & keyof TemplateRow, value: number | undefined) => {
    if (value === undefined) return;
    if (value < 0) problems.push({ field, detail: 'Must be a positive integer.' });
    else if (minimumOneMinute && value > 0 && value < 60_000 && field !== 'default_ttl_ms' && field !== 'activity_bump_ms') {
      problems.push({ field, detail: 'Value must be at least one minute.' });
    } else (columns as Record<string, number>)[field] = value;
  };
  nonNegative('default_ttl_ms', input.default_ttl_ms);
  nonNegative('activity_bump_ms', input.activity_bump_ms);
  nonNegative('failure_ttl_ms', input.failure_ttl_ms);
  nonNegative('time_til_dormant_ms', input.time_til_dormant_ms);
  nonNegative('time_til_dormant_autodelete_ms', input.time_til_dormant_autodelete_ms);
  if (input.autostop_requirement) {
    if (input.autostop_requirement.days_of_week) {
      columns.autostop_requirement_days = weekdaysToBitmap(
        input.autostop_requirement.days_of_week,
        'autostop_requirement.days_of_week',
        problems,
      );
    }
    const weeks = input.autostop_requirement.weeks;
    if (weeks !== undefined) {
      if (weeks < 0 || weeks > MAX_AUTOSTOP_REQUIREMENT_WEEKS) {
        problems.push({ field: 'autostop_requirement.weeks', detail: `must be between 0 and ${MAX_AUTOSTOP_REQUIREMENT_WEEKS}` });
      } else columns.autostop_requirement_weeks = Math.max(1, weeks);
    }
  }
  if (input.autostart_requirement?.days_of_week) {
    columns.autostart_requirement_days = weekdaysToBitmap(
      input.autostart_requirement.days_of_week,
      'autostart_requirement.days_of_week',
      problems,
    );
  }
  return columns;
}

// `null` is "the default", as the reference's create form sends it.
const bool = (value: boolean | null | undefined): number | undefined => (value == null ? undefined : value ? 1 : 0);

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Creates a template from a version that is not part of one yet, with the reference's checks in
 * its order and its defaults for every scheduling field left out.
 */
export async function createTemplate(
  store: AuthorizedStore,
  organizationId: string,
  input: CreateTemplateRequest,
  now: Date,
): Promise<TemplateRow> {
  if (!store.can('create', { type: 'template', org_id: organizationId })) throw forbiddenProblem();
  const problem = nameProblem(input.name);
  const problems: FieldValidation[] = [];
  if (problem) problems.push({ field: 'name', detail: `${ruleDetail('template_name', input.name)}: ${problem}` });
  checkDisplayName(input.display_name, problems);
  if (problems.length > 0) throw new HttpProblem(400, 'Invalid create template request.', { validations: problems });
  const taken = await store.templates.getByName(organizationId, input.name).catch((error: unknown) => {
    if (isNotFoundOrHidden(error)) return undefined;
    throw error;
  });
  if (taken) throw duplicateName(input.name);
  let version;
  try {
    version = await store.templateVersions.get(input.template_version_id);
  } catch (error) {
    if (isNotFoundOrHidden(error)) {
      throw new HttpProblem(404, `Template version "${input.template_version_id}" does not exist.`, {
        validations: [{ field: 'template_version_id', detail: 'Template version does not exist' }],
      });
    }
    throw error;
  }
  const field = [{ field: 'template_version_id', detail: '' }];
  if (version.version.organization_id !== organizationId) {
    throw new HttpProblem(404, `Template version "${input.template_version_id}" does not exist.`, { validations: field });
  }
  if (version.version.archived) throw new HttpProblem(400, `Template version ${version.version.id} is archived.`, { validations: field });
  if (version.version.template_id)
    throw new HttpProblem(400, `Template version ${version.version.id} is already part of a template`, { validations: field });
  if (jobStatus(version.job) !== 'succeeded') {
    throw new HttpProblem(400, 'Only versions that have been built successfully can make a template.', {
      detail: `The version's import job is ${jobStatus(version.job)}.`,
      validations: field,
    });
  }
  const columns = schedulingColumns(input, problems, false);
  if (problems.length > 0) throw new HttpProblem(400, 'Invalid create template request.', { validations: problems });
  const iso = now.toISOString();
  const row: TemplateRow = {
    id: newId(),
    organization_id: organizationId,
    name: input.name,
    display_name: input.display_name ?? '',
    description: input.description ?? version.version.declared_description,
    icon: input.icon ?? version.version.declared_icon,
    provisioner: version.job.provisioner,
    active_version_id: version.version.id,
    created_by: store.subject.id,
    created_at: iso,
    updated_at: iso,
    deleted: 0,
    default_ttl_ms: 0,
    activity_bump_ms: 3_600_000,
    autostop_requirement_days: 0,
    autostop_requirement_weeks: 1,
    autostart_requirement_days: 127,
    allow_user_autostart: bool(input.allow_user_autostart) ?? 1,
    allow_user_autostop: bool(input.allow_user_autostop) ?? 1,
    allow_user_cancel_workspace_jobs: bool(input.allow_user_cancel_workspace_jobs) ?? 0,
    failure_ttl_ms: 0,
    time_til_dormant_ms: 0,
    time_til_dormant_autodelete_ms: 0,
    require_active_version: bool(input.require_active_version) ?? 0,
    deprecation_message: '',
    max_port_share_level: input.max_port_share_level ?? DEFAULT_MAX_PORT_SHARE_LEVEL,
    use_classic_parameter_flow: bool(input.use_classic_parameter_flow) ?? 0,
    user_acl: '{}',
    group_acl: JSON.stringify(input.disable_everyone_group_access ? {} : { [organizationId]: EVERYONE_ACTIONS }),
    ...columns,
  };
  try {
    return await store.templates.insert(row);
  } catch (error) {
    if (error instanceof ConflictError && error.constraint.includes('templates_org_name')) throw duplicateName(input.name);
    if (error instanceof ConflictError)
      throw new HttpProblem(400, `Template version ${version.version.id} is already part of a template`, { validations: field });
    throw error;
  }
}

function duplicateName(name: string): HttpProblem {
  return new HttpProblem(409, `Template with name "${name}" already exists.`, {
    validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
  });
}

/**
 * What a version's template file declares about its template (description, icon), for a version
 * made active: the file is where a template's author keeps them, so it wins over an earlier edit;
 * a file that declares neither leaves the template's as they are.
 */
export function declaredTemplateFields(version: TemplateVersionRow): { description?: string; icon?: string } {
  return {
    ...(version.declared_description ? { description: version.declared_description } : {}),
    ...(version.declared_icon ? { icon: version.declared_icon } : {}),
  };
}

/**
 * Applies a metadata update; omitted fields keep their values. Returns undefined when nothing
 * changed, which the API answers with 304.
 */
export async function updateTemplateMeta(
  store: AuthorizedStore,
  template: TemplateRow,
  input: UpdateTemplateMeta,
): Promise<TemplateRow | undefined> {
  const problems: FieldValidation[] = [];
  const name = input.name ? input.name : undefined;
  if (name !== undefined) {
    const problem = nameProblem(name);
    if (problem) problems.push({ field: 'name', detail: `${ruleDetail('template_name', name)}: ${problem}` });
  }
  checkDisplayName(input.display_name, problems);
  const columns = schedulingColumns(input, problems, true);
  if (problems.length > 0) throw new HttpProblem(400, 'Invalid request to update template metadata!', { validations: problems });
  const changes: Partial<TemplateRow> = definedOnly({
    name,
    display_name: input.display_name,
    description: input.description,
    icon: input.icon,
    deprecation_message: input.deprecation_message,
    allow_user_autostart: bool(input.allow_user_autostart),
    allow_user_autostop: bool(input.allow_user_autostop),
    allow_user_cancel_workspace_jobs: bool(input.allow_user_cancel_workspace_jobs),
    require_active_version: bool(input.require_active_version),
    max_port_share_level: input.max_port_share_level,
    use_classic_parameter_flow: bool(input.use_classic_parameter_flow),
    group_acl:
      input.disable_everyone_group_access === undefined
        ? undefined
        : JSON.stringify(withEveryone(template, !input.disable_everyone_group_access)),
    ...columns,
  });
  const changed = Object.entries(changes).filter(([key, value]) => template[key as keyof TemplateRow] !== value);
  if (changed.length === 0) return undefined;
  try {
    return await store.templates.update(template, Object.fromEntries(changed));
  } catch (error) {
    if (error instanceof ConflictError) throw duplicateName(name ?? template.name);
    throw error;
  }
}

function withEveryone(template: TemplateRow, everyone: boolean): Record<string, string[]> {
  const acl = JSON.parse(template.group_acl) as Record<string, string[]>;
  if (everyone) acl[template.organization_id] = EVERYONE_ACTIONS;
  else delete acl[template.organization_id];
  return acl;
}

/** A parsed template search (`q`). */
export interface TemplateSearch {
  readonly organization?: string;
  readonly exactName?: string;
  readonly name?: string;
  readonly deprecated: boolean | undefined;
  readonly ids?: readonly string[];
  readonly author?: string;
}

const TEMPLATE_FILTERS = new Set([
  'deleted',
  'organization',
  'exact_name',
  'name',
  'display_name',
  'ids',
  'deprecated',
  'author',
  'author_id',
  'has-ai-task',
]);

/** Parses `q` of the template lists; free text searches names. Unknown keys are a 400. */
export function parseTemplateSearch(q: string | undefined): TemplateSearch {
  const found: Record<string, string> = {};
  const words: string[] = [];
  for (const token of (q ?? '').toLowerCase().match(/(?:[^\s"]+|"[^"]*")+/g) ?? []) {
    const clean = token.replace(/"/g, '');
    const colon = clean.indexOf(':');
    if (colon < 0) {
      words.push(clean);
      continue;
    }
    if (colon === 0 || colon === clean.length - 1 || clean.indexOf(':', colon + 1) >= 0) {
      throw invalidSearch(`Query element "${clean}" cannot start or end with ':' or hold more than one`);
    }
    const key = clean.slice(0, colon);
    if (!TEMPLATE_FILTERS.has(key)) throw invalidSearch(`Query param "${key}" is not a valid query param`);
    found[key] = clean.slice(colon + 1);
  }
  const deprecated = found['deprecated'];
  if (deprecated !== undefined && deprecated !== 'true' && deprecated !== 'false')
    throw invalidSearch('Query param "deprecated" must be a boolean');
  const text = [found['name'] ?? found['display_name'], ...words].filter(Boolean).join(' ');
  return {
    ...(found['organization'] ? { organization: found['organization'] } : {}),
    ...(found['exact_name'] ? { exactName: found['exact_name'] } : {}),
    ...(text ? { name: text } : {}),
    deprecated: deprecated === undefined ? undefined : deprecated === 'true',
    ...(found['ids'] ? { ids: found['ids'].split(',').filter(Boolean) } : {}),
    ...(found['author'] ? { author: found['author'] } : {}),
  };
}

function invalidSearch(detail: string): HttpProblem {
  return new HttpProblem(400, 'Invalid template search query.', { validations: [{ field: 'q', detail }] });
}
