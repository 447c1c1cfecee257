import { createHash, randomInt } from 'node:crypto';
import { createTar, inspectTar } from '../lib/archive/index.js';
import { ConflictError, forbiddenProblem, HttpProblem, isNotFoundOrHidden, NotFoundError } from '../lib/errors.js';
import { newId } from '../lib/random.js';
import type { CreateTemplateVersionRequest } from '../sdk/wire/index.js';
import type { TemplateExamples } from './template-examples.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';
import { queuedJob, type ProvisionerJobRow, type TemplateRow, type TemplateVersionRow } from '../store/rows.js';
import { JOB_POSTED_CHANNEL } from './provisioner-events.js';
import { normalizeTags } from './provisioner-tags.js';

/** Version names: letters and digits separated by single `_`, `.` or `-`, at most 64 characters. */
const VERSION_NAME = /^[a-zA-Z0-9]+(?:[_.-][a-zA-Z0-9]+)*$/;

/** What a version name breaks, or undefined. */
export function versionNameProblem(name: string): string | undefined {
  if (name.length > 64) return 'must be <= 64 characters';
  if (!VERSION_NAME.test(name)) return 'must be letters and digits separated by single "_", "." or "-"';
  return undefined;
}

/**
 * Creates a template version and queues its import job, in one transaction. The archive comes
 * from an uploaded file or a built-in example; the provisioner from the request or, when not
 * given, from what the archive holds.
 */
export async function createTemplateVersion(
  store: AuthorizedStore,
  events: { readonly pubsub: PubSub },
  organizationId: string,
  input: CreateTemplateVersionRequest,
  examples: TemplateExamples,
  now: Date,
): Promise<{ version: TemplateVersionRow; job: ProvisionerJobRow }> {
  let template: TemplateRow | undefined;
  if (input.template_id) {
    try {
      template = await store.templates.get(input.template_id);
    } catch (error) {
      if (error instanceof NotFoundError) throw new HttpProblem(404, 'Template does not exist.');
      throw error;
    }
    if (template.organization_id !== organizationId) throw new HttpProblem(404, 'Template does not exist.');
  }
  // Refused before anything is stored, an example's file included.
  if (template) await store.templates.authorize('update', { template });
  else if (!store.can('create', { type: 'template', org_id: organizationId })) throw forbiddenProblem();
  if (input.example_id && input.file_id) throw new HttpProblem(400, 'You cannot specify both an example_id and a file_id.');
  if (!input.example_id && !input.file_id) {
    throw new HttpProblem(400, 'Either file_id or example_id must be given.', {
      validations: [
        { field: 'file_id', detail: 'give the id of an uploaded archive' },
        { field: 'example_id', detail: 'or the id of a built-in example' },
      ],
    });
  }
  const generated = !input.name?.trim();
  let name = input.name?.trim() || generateVersionName();
  const nameProblem = versionNameProblem(name);
  if (nameProblem) throw new HttpProblem(400, 'Invalid template version name.', { validations: [{ field: 'name', detail: nameProblem }] });

  const fileId = input.example_id
    ? await storeExample(store, examples, input.example_id, now)
    : await readableFileId(store, input.file_id ?? '');
  const provisioner = await chooseProvisioner(store, fileId, input.provisioner);
  const versionId = newId();
  const iso = now.toISOString();
  const job = queuedJob(
    {
      id: newId(),
      organization_id: organizationId,
      type: 'template_version_import',
      provisioner,
      file_id: fileId,
      initiator_id: store.subject.id,
      input: JSON.stringify({ template_version_id: versionId, user_variable_values: input.user_variable_values ?? [] }),
      tags: JSON.stringify(normalizeTags(store.subject.id, input.tags)),
    },
    iso,
  );
  const version: TemplateVersionRow = {
    id: versionId,
    template_id: template?.id ?? null,
    organization_id: organizationId,
    name,
    message: input.message ?? '',
    readme: '',
    job_id: job.id,
    created_by: store.subject.id,
    created_at: iso,
    updated_at: iso,
    archived: 0,
    variables: '[]',
    parameters: '[]',
    declared_description: '',
    declared_icon: '',
    presets: '[]',
    external_auth: '[]',
  };
  try {
    await insertWithFreeName(store, version, job, template, generated);
    name = version.name;
  } catch (error) {
    if (error instanceof ConflictError) {
      throw new HttpProblem(409, `A template version with name "${name}" already exists for this template.`, {
        validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      });
    }
    throw error;
  }
  await events.pubsub.publish(JOB_POSTED_CHANNEL, organizationId);
  return { version, job };
}

/** Inserts the version; a generated name that happens to be taken is replaced by another. */
async function insertWithFreeName(
  store: AuthorizedStore,
  version: TemplateVersionRow,
  job: ProvisionerJobRow,
  template: TemplateRow | undefined,
  generated: boolean,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await store.templateVersions.insert(version, job, template);
      return;
    } catch (error) {
      if (!(error instanceof ConflictError) || !generated || attempt >= 10) throw error;
      version.name = generateVersionName();
    }
  }
}

async function readableFileId(store: AuthorizedStore, fileId: string): Promise<string> {
  try {
    return (await store.files.get(fileId)).id;
  } catch (error) {
    if (isNotFoundOrHidden(error)) throw new HttpProblem(404, 'File not found.');
    throw error;
  }
}

async function storeExample(store: AuthorizedStore, examples: TemplateExamples, exampleId: string, now: Date): Promise<string> {
  const files = examples.files(exampleId);
  if (!files)
    throw new HttpProblem(400, 'Example not found.', {
      validations: [{ field: 'example_id', detail: `no built-in example "${exampleId}"` }],
    });
  const tar = await createTar(Object.fromEntries(files.map((file) => [file.path, { content: file.content, mode: file.mode }])));
  const { file } = await store.files.save({
    id: newId(),
    hash: createHash('sha256').update(tar).digest('hex'),
    created_by: store.subject.id,
    created_at: now.toISOString(),
    mimetype: 'application/x-tar',
    size: tar.length,
    data: tar,
  });
  return file.id;
}

/**
 * The provisioner that reads an archive. The one asked for, when the archive is in its format;
 * otherwise the one whose format the archive is in: clients of the reference API always ask for
 * `terraform`, even for a template.yaml. A provisioner Cove does not know is kept as asked, for an
 * external provisioner daemon that may.
 */
async function chooseProvisioner(store: AuthorizedStore, fileId: string, requested: string | undefined): Promise<string> {
  const formats = archiveFormats(await inspectTar((await store.files.get(fileId)).data));
  if (requested !== undefined && (formats.includes(requested) || !KNOWN_FORMATS.includes(requested))) return requested;
  const detected = formats[0];
  if (detected) return detected;
  if (requested !== undefined) return requested;
  throw new HttpProblem(400, 'The archive holds no template.', {
    detail: 'Expected template.yaml (native), echo.json (echo) or *.tf files (terraform) at its top level, or name the provisioner.',
    validations: [{ field: 'provisioner', detail: 'could not be detected from the archive' }],
  });
}

/** The template formats Cove's own provisioners read, in order of preference. */
const KNOWN_FORMATS: readonly string[] = ['native', 'echo', 'terraform'];

/** Which of the known formats an archive holds at its top level: template.yaml, echo.json or *.tf files. */
function archiveFormats(entries: readonly { readonly path: string }[]): string[] {
  const names = new Set(entries.map((entry) => entry.path));
  const formats: string[] = [];
  if (names.has('template.yaml') || names.has('template.yml')) formats.push('native');
  if (names.has('echo.json')) formats.push('echo');
  if (entries.some((entry) => entry.path.endsWith('.tf') && !entry.path.includes('/'))) formats.push('terraform');
  return formats;
}

const ADJECTIVES = [
  'amazing',
  'brave',
  'calm',
  'clever',
  'dazzling',
  'eager',
  'festive',
  'gentle',
  'happy',
  'jolly',
  'keen',
  'lucid',
  'modest',
  'nifty',
  'optimistic',
  'quirky',
  'serene',
  'tender',
  'upbeat',
  'vibrant',
  'wizardly',
  'zealous',
];
const SURNAMES = [
  'archimedes',
  'babbage',
  'curie',
  'darwin',
  'euler',
  'faraday',
  'galois',
  'hopper',
  'jepsen',
  'kepler',
  'lovelace',
  'meitner',
  'noether',
  'pascal',
  'ramanujan',
  'shannon',
  'turing',
  'volta',
  'wozniak',
  'yalow',
];

/** A readable name for a version the user did not name, e.g. `amazing_turing3`. */
export function generateVersionName(): string {
  const adjective = ADJECTIVES[randomInt(ADJECTIVES.length)] ?? 'happy';
  const surname = SURNAMES[randomInt(SURNAMES.length)] ?? 'turing';
  return `${adjective}_${surname}${randomInt(10)}`;
}

/** The body of a dry-run request. */
export interface DryRunInput {
  readonly workspace_name?: string | undefined;
  readonly rich_parameter_values?: readonly { name: string; value: string }[] | undefined;
}

/**
 * Queues a plan of a workspace from a version, without creating anything: the resources a start
 * would make with these parameter values. The version's import must have finished.
 */
export async function createDryRun(
  store: AuthorizedStore,
  events: { readonly pubsub: PubSub },
  version: TemplateVersionRow,
  importJob: ProvisionerJobRow,
  input: DryRunInput,
  now: Date,
): Promise<ProvisionerJobRow> {
  if (!importJob.completed_at) throw new HttpProblem(400, "Template version import job hasn't completed!");
  const job = queuedJob(
    {
      id: newId(),
      organization_id: importJob.organization_id,
      type: 'template_version_dry_run',
      provisioner: importJob.provisioner,
      file_id: importJob.file_id,
      initiator_id: store.subject.id,
      input: JSON.stringify({
        template_version_id: version.id,
        workspace_name: input.workspace_name ?? '',
        rich_parameter_values: input.rich_parameter_values ?? [],
      }),
      tags: importJob.tags,
    },
    now.toISOString(),
  );
  await store.templateVersions.insertDryRunJob(version, job);
  await events.pubsub.publish(JOB_POSTED_CHANNEL, job.organization_id);
  return job;
}
