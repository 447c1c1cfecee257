import type { Template } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { humanTime, printJson } from '../output.js';
import { confirm } from '../confirm.js';
import { orgOption, requireTemplate } from './templates-common.js';
import { editCommand } from './templates-edit.js';
import { initCommand } from './templates-init.js';
import { permissionsCommand } from './templates-permissions.js';
import { pullCommand } from './templates-pull.js';
import { pushCommand } from './templates-push.js';
import { showCommand } from './templates-show.js';
import { versionsCommand } from './templates-versions.js';

const TEMPLATE_COLUMNS = [
  { heading: 'name', value: (t: Template) => t.name },
  { heading: 'display name', value: (t: Template) => t.display_name },
  { heading: 'organization', value: (t: Template) => t.organization_name },
  { heading: 'active users', value: (t: Template) => String(t.active_user_count) },
  { heading: 'last updated', value: (t: Template) => humanTime(t.updated_at) },
  { heading: 'deprecated', value: (t: Template) => (t.deprecated ? 'yes' : '') },
  { heading: 'id', value: (t: Template) => t.id, hidden: true },
  { heading: 'active version id', value: (t: Template) => t.active_version_id, hidden: true },
  { heading: 'created at', value: (t: Template) => humanTime(t.created_at), hidden: true },
  { heading: 'provisioner', value: (t: Template) => t.provisioner, hidden: true },
];

const listTemplates: CommandSpec = {
  name: 'list',
  aliases: ['ls'],
  summary: 'List the templates you can see',
  options: [{ flags: '-O, --org <organization>', env: 'COVE_ORGANIZATION', description: 'Only this organization (default: all of them)' }],
  columns: TEMPLATE_COLUMNS,
  async run(context, _args, options) {
    const client = await context.client();
    const organization = typeof options['org'] === 'string' ? options['org'] : undefined;
    const templates = organization === undefined ? await client.templates() : await client.organizationTemplates(organization);
    context.printData(templates, TEMPLATE_COLUMNS);
    return 0;
  },
};

const deleteTemplate: CommandSpec = {
  name: 'delete',
  aliases: ['rm'],
  summary: 'Delete templates (refused while workspaces use them)',
  arguments: [{ name: 'templates', description: 'Template names', variadic: true }],
  options: [orgOption, { flags: '-y, --yes', description: 'Delete without asking', default: false }],
  async run(context, args, options) {
    const names = args.flat();
    if (names.length === 0) throw new CliError('Name the templates to delete.');
    const client = await context.client();
    const templates = await Promise.all(names.map((name) => requireTemplate(client, String(options['org']), name)));
    await confirm(context, `Delete template${names.length === 1 ? '' : 's'} ${names.join(', ')}?`, {
      yes: options['yes'] === true,
      action: `Deleting ${names.join(', ')}`,
      canceled: 'nothing was deleted',
    });
    for (const template of templates) {
      await client.deleteTemplate(template.id);
      context.say(`Deleted template "${template.name}".`);
    }
    if (context.json)
      printJson(
        context.io,
        templates.map((t) => ({ id: t.id, name: t.name, deleted: true })),
      );
    return 0;
  },
};

/** `cove templates`: author, upload and manage templates. */
export const templatesCommand: CommandSpec = {
  name: 'templates',
  aliases: ['template'],
  summary: 'Create, push, pull, edit and delete templates',
  description:
    'Templates describe workspaces: their compute, agents, apps and parameters. Start from an example ' +
    'with "cove templates init", upload it with "cove templates push", and push again to publish changes.',
  subcommands: [
    initCommand,
    pushCommand,
    listTemplates,
    showCommand,
    versionsCommand,
    pullCommand,
    editCommand,
    permissionsCommand,
    deleteTemplate,
  ],
};
