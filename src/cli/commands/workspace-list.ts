import type { Workspace } from '../../sdk/wire/index.js';
import type { CommandSpec } from '../command.js';
import { humanTime, printData, type Column } from '../output.js';
import { stringOption } from './templates-common.js';

/** The table's columns; a workspace of someone else is shown as `owner/name`. */
function columns(me: string): Column<Workspace>[] {
  return [
    { heading: 'workspace', value: (w) => (w.owner_name === me ? w.name : `${w.owner_name}/${w.name}`) },
    { heading: 'template', value: (w) => w.template_name },
    { heading: 'status', value: (w) => w.latest_build.status },
    { heading: 'last built', value: (w) => humanTime(w.latest_build.created_at) },
    { heading: 'version', value: (w) => w.latest_build.template_version_name },
    { heading: 'outdated', value: (w) => (w.outdated ? 'outdated' : '') },
  ];
}

/** `cove list`: the caller's workspaces, or everyone's with --all. */
export const listCommand: CommandSpec = {
  name: 'list',
  aliases: ['ls'],
  summary: 'List workspaces',
  description: 'List your workspaces; --all lists every workspace you can see, --search filters as the API does.',
  options: [
    { flags: '-a, --all', description: "Every user's workspaces you can see, not only yours", default: false },
    {
      flags: '--search <query>',
      description: 'Filter like the API: "owner:alice template:python status:running outdated:true" (default: owner:me)',
    },
  ],
  examples: ['cove list', 'cove ls --all -o json', 'cove list --search "status:running template:python"'],
  async run(context, _args, options) {
    const client = await context.client();
    const search = stringOption(options, 'search');
    const q = search ?? (options['all'] === true ? undefined : 'owner:me');
    const [{ workspaces }, me] = await Promise.all([client.workspaces(q === undefined ? {} : { q }), client.user('me')]);
    const sorted = [...workspaces].sort((a, b) => a.owner_name.localeCompare(b.owner_name) || a.name.localeCompare(b.name));
    if (!context.json && sorted.length === 0) {
      context.say(
        q === 'owner:me' ? 'You have no workspaces yet; create one with "cove create NAME --template TEMPLATE".' : 'No workspace matches.',
      );
      return 0;
    }
    printData(context.io, context.global.output, sorted, columns(me.username));
    return 0;
  },
};
