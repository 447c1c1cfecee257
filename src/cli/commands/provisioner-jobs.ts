import type { ProvisionerJob } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { humanTime, printData, printJson } from '../output.js';
import { orgOption, stringOption } from './templates-common.js';

/** The statuses the job list filters on, as the API accepts them. */
const STATUSES = ['pending', 'running', 'succeeded', 'canceling', 'canceled', 'failed', 'unknown'] as const;

/** Tags as people write them; the empty `owner` of organization-wide jobs is left out. */
function describeTags(tags: Readonly<Record<string, string>>): string {
  return Object.entries(tags)
    .filter(([key, value]) => !(key === 'owner' && value === ''))
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

const JOB_COLUMNS = [
  { heading: 'created at', value: (j: ProvisionerJob) => humanTime(j.created_at) },
  { heading: 'id', value: (j: ProvisionerJob) => j.id },
  { heading: 'type', value: (j: ProvisionerJob) => j.type },
  { heading: 'template', value: (j: ProvisionerJob) => j.metadata.template_display_name || j.metadata.template_name },
  { heading: 'workspace', value: (j: ProvisionerJob) => j.metadata.workspace_name ?? '' },
  { heading: 'status', value: (j: ProvisionerJob) => j.status },
  { heading: 'queue', value: (j: ProvisionerJob) => (j.status === 'pending' ? `${j.queue_position}/${j.queue_size}` : '') },
  { heading: 'tags', value: (j: ProvisionerJob) => describeTags(j.tags) },
];

const listCommand: CommandSpec = {
  name: 'list',
  aliases: ['ls'],
  summary: 'List the provisioner jobs of an organization, newest first',
  description:
    'Lists the provisioner jobs of an organization (template imports, dry runs and workspace builds), newest ' +
    'first. Only organization administrators and template administrators may see them.',
  options: [
    orgOption,
    {
      flags: '-s, --status <statuses>',
      env: 'COVE_PROVISIONER_JOB_LIST_STATUS',
      description: `Only jobs with these statuses, comma-separated: ${STATUSES.join(', ')}`,
    },
    { flags: '-l, --limit <count>', env: 'COVE_PROVISIONER_JOB_LIST_LIMIT', description: 'At most this many jobs', default: '50' },
  ],
  examples: [
    'cove provisioner jobs list',
    'cove provisioner jobs list --status pending,running --limit 10',
    'cove provisioner jobs list -o json',
  ],
  async run(context, _args, options) {
    const limit = Number(options['limit']);
    if (!Number.isInteger(limit) || limit < 1)
      throw new CliError(`--limit takes a positive whole number, not "${String(options['limit'])}".`);
    const status = stringOption(options, 'status');
    const unknown = (status ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '' && !(STATUSES as readonly string[]).includes(s));
    if (unknown.length > 0)
      throw new CliError(`Unknown job status ${unknown.join(', ')}.`, { hint: `Choose from ${STATUSES.join(', ')}.` });
    const jobs = await (await context.client()).provisionerJobs(String(options['org']), { limit, ...(status ? { status } : {}) });
    printData(context.io, context.global.output, jobs, JOB_COLUMNS);
    return 0;
  },
};

const cancelCommand: CommandSpec = {
  name: 'cancel',
  summary: 'Cancel a pending or running provisioner job',
  description:
    'Cancels a provisioner job: a pending one ends at once, a running one is told to stop and ends as ' +
    'canceled or failed. The job is canceled through what it builds, so the rules of template versions ' +
    'and workspace builds apply (a workspace owner may cancel their own builds when the template allows).',
  arguments: [{ name: 'job', description: 'The job id (see "cove provisioner jobs list")', required: true }],
  options: [orgOption],
  examples: ['cove provisioner jobs cancel 3f1c2a9e-6d0b-4b53-9a51-0c1d2e3f4a5b'],
  async run(context, [id = ''], options) {
    const organization = String(options['org']);
    const client = await context.client();
    await client.cancelProvisionerJob(organization, id);
    const job = await client.provisionerJob(organization, id);
    if (context.json) printJson(context.io, job);
    else context.say(`Canceled provisioner job ${job.id} (${job.type}); it is now ${job.status}.`);
    return 0;
  },
};

/** `cove provisioner jobs`: the job queue of an organization. */
export const provisionerJobsCommand: CommandSpec = {
  name: 'jobs',
  aliases: ['job'],
  summary: 'List and cancel provisioner jobs',
  subcommands: [listCommand, cancelCommand],
};
