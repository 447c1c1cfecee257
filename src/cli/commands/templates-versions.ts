import type { TemplateVersion } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { humanTime, printJson, type Column } from '../output.js';
import { orgOption, requireTemplate, resolveVersion } from './templates-common.js';

const templateArgument = { name: 'template', description: 'Template name', required: true } as const;

/** The table's columns; `active` needs the template. */
function versionColumns(activeVersionId: string): Column<TemplateVersion>[] {
  return [
    { heading: 'name', value: (v) => v.name },
    { heading: 'created at', value: (v) => humanTime(v.created_at) },
    { heading: 'created by', value: (v) => v.created_by.username },
    { heading: 'status', value: (v) => v.job.status },
    { heading: 'active', value: (v) => (v.id === activeVersionId ? 'active' : v.archived ? 'archived' : '') },
    { heading: 'id', value: (v) => v.id, hidden: true },
    { heading: 'message', value: (v) => v.message, hidden: true },
  ];
}

const listVersions: CommandSpec = {
  name: 'list',
  aliases: ['ls'],
  summary: "List a template's versions",
  arguments: [templateArgument],
  options: [orgOption, { flags: '--include-archived', description: 'List archived versions too', default: false }],
  columns: versionColumns(''),
  async run(context, [name = ''], options) {
    const client = await context.client();
    const template = await requireTemplate(client, String(options['org']), name);
    const versions = await client.templateVersions(template.id, { include_archived: options['includeArchived'] === true });
    context.printData(versions, versionColumns(template.active_version_id));
    return 0;
  },
};

const archiveVersions: CommandSpec = {
  name: 'archive',
  summary: 'Archive versions, so nobody builds workspaces from them',
  arguments: [templateArgument, { name: 'versions', description: 'Version names', variadic: true }],
  options: [
    orgOption,
    { flags: '--all-failed', description: 'Archive every version whose import failed', default: false },
    { flags: '--all-unused', description: 'Archive every version but the active one', default: false },
  ],
  examples: ['cove templates versions archive python amazing_turing3', 'cove templates versions archive python --all-failed'],
  async run(context, args, options) {
    const [name = '', ...names] = args.flat();
    const bulk = options['allUnused'] === true ? 'all' : options['allFailed'] === true ? 'failed' : undefined;
    if (bulk === undefined && names.length === 0) throw new CliError('Name the versions to archive, or pass --all-failed or --all-unused.');
    if (bulk !== undefined && names.length > 0) throw new CliError('Name versions or pass --all-failed/--all-unused, not both.');
    const client = await context.client();
    const template = await requireTemplate(client, String(options['org']), name);
    if (bulk !== undefined) {
      const result = await client.archiveTemplateVersions(template.id, bulk === 'all');
      if (context.json) printJson(context.io, result);
      else context.say(`Archived ${result.archived_ids.length} version${result.archived_ids.length === 1 ? '' : 's'} of ${template.name}.`);
      return 0;
    }
    const archived: string[] = [];
    for (const versionName of names) {
      const version = await resolveVersion(client, template, versionName);
      await client.archiveTemplateVersion(version.id, true);
      archived.push(version.id);
      context.say(`Archived version "${version.name}" of ${template.name}.`);
    }
    if (context.json) printJson(context.io, { template_id: template.id, archived_ids: archived });
    return 0;
  },
};

const unarchiveVersion: CommandSpec = {
  name: 'unarchive',
  summary: 'Make an archived version usable again',
  arguments: [templateArgument, { name: 'version', description: 'Version name', required: true }],
  options: [orgOption],
  async run(context, [name = '', versionName = ''], options) {
    const client = await context.client();
    const template = await requireTemplate(client, String(options['org']), name);
    const version = await resolveVersion(client, template, versionName);
    const result = await client.archiveTemplateVersion(version.id, false);
    if (context.json) printJson(context.io, result);
    else context.say(`Unarchived version "${version.name}" of ${template.name}.`);
    return 0;
  },
};

const promoteVersion: CommandSpec = {
  name: 'promote',
  summary: "Make a version the template's active one",
  arguments: [templateArgument, { name: 'version', description: 'Version name', required: true }],
  options: [orgOption],
  async run(context, [name = '', versionName = ''], options) {
    const client = await context.client();
    const template = await requireTemplate(client, String(options['org']), name);
    const version = await resolveVersion(client, template, versionName);
    const result = await client.promoteTemplateVersion(template.id, version.id);
    if (context.json) printJson(context.io, result);
    else context.say(`Template "${template.name}" is now at version "${version.name}".`);
    return 0;
  },
};

/** `cove templates versions`: list, archive, unarchive and promote versions. */
export const versionsCommand: CommandSpec = {
  name: 'versions',
  aliases: ['version'],
  summary: "Manage a template's versions",
  subcommands: [listVersions, archiveVersions, unarchiveVersion, promoteVersion],
};
