import { formatDuration } from '../../lib/duration.js';
import type { Workspace } from '../../sdk/wire/index.js';
import type { CommandSpec } from '../command.js';
import { humanTime, type Column } from '../output.js';
import { stringOption } from './templates-common.js';

/**
 * The table's columns; a workspace of someone else is shown as `owner/name`. `favorite` is not
 * shown by default, as in the reference CLI (`-c favorite,workspace,…`); under `-o json` the API's
 * `favorite` field is there as it sent it.
 */
function columns(me: string): Column<Workspace>[] {
  return [
    { heading: 'workspace', value: (w) => (w.owner_name === me ? w.name : `${w.owner_name}/${w.name}`) },
    { heading: 'template', value: (w) => w.template_name },
    { heading: 'status', value: (w) => w.latest_build.status },
    { heading: 'last built', value: (w) => humanTime(w.latest_build.created_at) },
    { heading: 'version', value: (w) => w.latest_build.template_version_name },
    { heading: 'outdated', value: (w) => (w.outdated ? 'outdated' : '') },
    { heading: 'id', value: (w) => w.id, hidden: true },
    { heading: 'owner', value: (w) => w.owner_name, hidden: true },
    { heading: 'organization', value: (w) => w.organization_name, hidden: true },
    { heading: 'healthy', value: (w) => (w.health.healthy ? 'yes' : 'no'), hidden: true },
    { heading: 'starts at', value: (w) => w.autostart_schedule ?? '', hidden: true },
    { heading: 'starts next', value: (w) => (w.next_start_at ? humanTime(w.next_start_at) : ''), hidden: true },
    { heading: 'stops after', value: (w) => (w.ttl_ms ? formatDuration(w.ttl_ms) : ''), hidden: true },
    { heading: 'automatic updates', value: (w) => w.automatic_updates, hidden: true },
    { heading: 'favorite', value: (w) => (w.favorite ? '★' : ''), hidden: true },
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
  columns: columns(''),
  examples: [
    'cove list',
    'cove ls --all -o json',
    'cove list --search "status:running template:python"',
    'cove list -c workspace,status,id',
  ],
  async run(context, _args, options) {
    const client = await context.client();
    const search = stringOption(options, 'search');
    const q = search ?? (options['all'] === true ? undefined : 'owner:me');
    const [{ workspaces }, me] = await Promise.all([client.workspaces(q === undefined ? {} : { q }), client.user('me')]);
    const sorted = listOrder(workspaces, me.id);
    if (!context.json && sorted.length === 0) {
      context.say(
        q === 'owner:me' ? 'You have no workspaces yet; create one with "cove create NAME --template TEMPLATE".' : 'No workspace matches.',
      );
      return 0;
    }
    context.printData(sorted, columns(me.username));
    return 0;
  },
};

/**
 * The reference's order: the caller's own favorites first, then workspaces whose last build started
 * them, then by owner and name ignoring case.
 */
function listOrder(workspaces: readonly Workspace[], myId: string): Workspace[] {
  const favorite = (w: Workspace) => (w.favorite && w.owner_id === myId ? 0 : 1);
  const started = (w: Workspace) => (w.latest_build.transition === 'start' && w.latest_build.status === 'running' ? 0 : 1);
  const lower = (text: string) => text.toLowerCase();
  return [...workspaces].sort(
    (a, b) =>
      favorite(a) - favorite(b) ||
      started(a) - started(b) ||
      lower(a.owner_name).localeCompare(lower(b.owner_name)) ||
      lower(a.name).localeCompare(lower(b.name)),
  );
}
