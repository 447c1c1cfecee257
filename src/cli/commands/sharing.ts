import type { CoveClient } from '../../sdk/client.js';
import type { Workspace, WorkspaceACL } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printJson, type Column } from '../output.js';
import { resolveWorkspace } from '../workspace-ref.js';
import { listOption, repeatableOptions } from './templates-common.js';

/** One line of `cove sharing status`: a user or a group and its role. */
interface ShareRow {
  readonly type: 'user' | 'group';
  readonly id: string;
  readonly name: string;
  readonly role: string;
}

const SHARE_COLUMNS: readonly Column<ShareRow>[] = [
  { heading: 'name', value: (row) => row.name },
  { heading: 'type', value: (row) => row.type },
  { heading: 'role', value: (row) => row.role },
  { heading: 'id', value: (row) => row.id, hidden: true },
];

const ROLES = new Set(['use', 'admin']);
/** The name of every organization's implicit group, whose id is the organization's. */
const EVERYONE = 'Everyone';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function shareRows(acl: WorkspaceACL): ShareRow[] {
  return [
    ...acl.users.map((user) => ({ type: 'user' as const, id: user.id, name: user.username, role: user.role })),
    ...acl.group.map((group) => ({ type: 'group' as const, id: group.id, name: group.name, role: group.role })),
  ];
}

/** Splits `NAME:ROLE` (the role defaulting to `use`, as the reference's CLI does) and checks the role. */
function nameAndRole(text: string, what: 'user' | 'group'): [string, string] {
  const colon = text.lastIndexOf(':');
  const name = colon < 0 ? text : text.slice(0, colon);
  const role = colon < 0 ? 'use' : text.slice(colon + 1);
  if (name === '') throw new CliError(`"${text}" names no ${what}.`, { hint: `Write --${what} NAME:ROLE.` });
  if (!ROLES.has(role)) throw new CliError(`"${role}" is not a workspace role.`, { hint: 'The roles are "use" and "admin".' });
  return [name, role];
}

/** The values of a repeatable, comma-separated option. */
function names(options: Readonly<Record<string, unknown>>, key: string): string[] {
  return listOption(options, key)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/**
 * A user by username (or id): among those already sharing the workspace, else among those it could
 * be shared with (what its sharing dialog offers, which a workspace owner may always ask).
 */
async function userId(client: CoveClient, workspace: Workspace, acl: WorkspaceACL, name: string): Promise<string> {
  if (UUID.test(name)) return name;
  const sharing = acl.users.find((user) => user.username === name);
  if (sharing) return sharing.id;
  const offered = await client.workspaceAvailableUsers(workspace.id, { q: name });
  const found = offered.find((user) => user.username === name);
  if (!found)
    throw new CliError(`No member "${name}" of the workspace's organization to share with.`, {
      hint: 'The workspace can be shared with the other members of its organization.',
    });
  return found.id;
}

/** A group of the workspace's organization by name (or id); `Everyone` is the organization's own. */
async function groupId(client: CoveClient, workspace: Workspace, acl: WorkspaceACL, name: string): Promise<string> {
  if (UUID.test(name)) return name;
  if (name === EVERYONE) return workspace.organization_id;
  const sharing = acl.group.find((group) => group.name === name);
  if (sharing) return sharing.id;
  const group = await client.request<{ id: string }>(
    'GET',
    `/organizations/${encodeURIComponent(workspace.organization_id)}/groups/${encodeURIComponent(name)}`,
  );
  return group.id;
}

async function printStatus(context: CommandContext, client: CoveClient, workspace: Workspace): Promise<void> {
  const acl = await client.workspaceAcl(workspace.id);
  if (context.json) return printJson(context.io, acl);
  const rows = shareRows(acl);
  if (rows.length === 0) {
    context.say(`Workspace ${workspace.owner_name}/${workspace.name} is not shared with anyone.`);
    return;
  }
  context.printData(rows, SHARE_COLUMNS);
}

const WORKSPACE_ARGUMENT = { name: 'workspace', description: 'The workspace: NAME, OWNER/NAME or its id', required: true };

/** `cove sharing`: share a workspace with users and groups, take shares away, and show them. */
export const sharingCommand: CommandSpec = {
  name: 'sharing',
  aliases: ['share'],
  summary: 'Share workspaces with users and groups',
  subcommands: [
    {
      name: 'share',
      aliases: ['add'],
      summary: 'Share a workspace with users or groups',
      description:
        'Gives each user or group a role on the workspace: "use" (see it, connect, start and stop it) or "admin" (also change and delete it). The role defaults to "use".',
      arguments: [WORKSPACE_ARGUMENT],
      configure: repeatableOptions([
        { flags: '--user <name:role...>', description: 'Users to share with, as USERNAME:ROLE (repeatable, comma-separated)' },
        { flags: '--group <name:role...>', description: 'Groups to share with, as GROUP:ROLE (repeatable, comma-separated)' },
      ]),
      columns: SHARE_COLUMNS,
      examples: ['cove sharing share dev --user bob:use', 'cove sharing share alice/dev --user bob:admin --group devs:use -o json'],
      async run(context, [name = ''], options) {
        const users = names(options, 'user').map((text) => nameAndRole(text, 'user'));
        const groups = names(options, 'group').map((text) => nameAndRole(text, 'group'));
        if (users.length === 0 && groups.length === 0)
          throw new CliError('Name at least one user or group to share with.', { hint: 'Add --user NAME:ROLE or --group NAME:ROLE.' });
        const client = await context.client();
        const workspace = await resolveWorkspace(client, name);
        const acl = await client.workspaceAcl(workspace.id);
        const user_roles: Record<string, string> = {};
        for (const [user, role] of users) user_roles[await userId(client, workspace, acl, user)] = role;
        const group_roles: Record<string, string> = {};
        for (const [group, role] of groups) group_roles[await groupId(client, workspace, acl, group)] = role;
        await client.updateWorkspaceAcl(workspace.id, { user_roles, group_roles });
        await printStatus(context, client, workspace);
      },
    },
    {
      name: 'unshare',
      aliases: ['remove'],
      summary: 'Take shared access to a workspace away from users or groups',
      arguments: [WORKSPACE_ARGUMENT],
      configure: repeatableOptions([
        { flags: '--user <name...>', description: 'Users to unshare (repeatable, comma-separated)' },
        { flags: '--group <name...>', description: 'Groups to unshare (repeatable, comma-separated)' },
      ]),
      columns: SHARE_COLUMNS,
      examples: ['cove sharing unshare dev --user bob', 'cove sharing remove dev --group devs'],
      async run(context, [name = ''], options) {
        const users = names(options, 'user');
        const groups = names(options, 'group');
        if (users.length === 0 && groups.length === 0)
          throw new CliError('Name at least one user or group to unshare.', { hint: 'Add --user NAME or --group NAME.' });
        const client = await context.client();
        const workspace = await resolveWorkspace(client, name);
        const acl = await client.workspaceAcl(workspace.id);
        const user_roles: Record<string, string> = {};
        for (const user of users) user_roles[await userId(client, workspace, acl, user)] = '';
        const group_roles: Record<string, string> = {};
        for (const group of groups) group_roles[await groupId(client, workspace, acl, group)] = '';
        await client.updateWorkspaceAcl(workspace.id, { user_roles, group_roles });
        await printStatus(context, client, workspace);
      },
    },
    {
      name: 'status',
      aliases: ['list'],
      summary: 'List the users and groups a workspace is shared with',
      arguments: [WORKSPACE_ARGUMENT],
      columns: SHARE_COLUMNS,
      examples: ['cove sharing status dev', 'cove sharing status alice/dev -o json', 'cove sharing status dev -c name,role,id'],
      async run(context, [name = '']) {
        const client = await context.client();
        await printStatus(context, client, await resolveWorkspace(client, name));
      },
    },
  ],
};
