import type { CoveClient } from '../../sdk/client.js';
import type { Group, PatchGroupRequest, ReducedUser } from '../../sdk/wire/index.js';
import { splitCommaList } from '../list-options.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec, OptionSpec } from '../command.js';
import { printJson } from '../output.js';
import { listOption, orgOption, repeatableOptions, stringOption } from './templates-common.js';

const GROUP_COLUMNS = [
  { heading: 'name', value: (g: Group) => g.name },
  { heading: 'display name', value: (g: Group) => g.display_name },
  { heading: 'organization', value: (g: Group) => g.organization_name },
  { heading: 'members', value: (g: Group) => String(g.total_member_count) },
  { heading: 'quota allowance', value: (g: Group) => String(g.quota_allowance) },
  { heading: 'source', value: (g: Group) => g.source },
  { heading: 'id', value: (g: Group) => g.id, hidden: true },
  { heading: 'organization id', value: (g: Group) => g.organization_id, hidden: true },
  { heading: 'avatar url', value: (g: Group) => g.avatar_url, hidden: true },
];

const MEMBER_COLUMNS = [
  { heading: 'username', value: (u: ReducedUser) => u.username },
  { heading: 'email', value: (u: ReducedUser) => u.email },
  { heading: 'status', value: (u: ReducedUser) => u.status },
  { heading: 'name', value: (u: ReducedUser) => u.name ?? '', hidden: true },
  { heading: 'id', value: (u: ReducedUser) => u.id, hidden: true },
];

const quotaOption: OptionSpec = {
  flags: '--quota-allowance <credits>',
  description: 'Daily cost credits each member may spend (summed over their groups)',
};

/** A non-negative whole number of credits from a flag, or undefined when the flag was not given. */
function quotaAllowance(options: Readonly<Record<string, unknown>>): number | undefined {
  const text = stringOption(options, 'quotaAllowance');
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) throw new CliError(`--quota-allowance takes a whole number of credits, not "${text}".`);
  return Number(text.trim());
}

/** The group of the organization named `name`. */
async function groupNamed(client: CoveClient, organization: string, name: string): Promise<Group> {
  return client.organizationGroup(organization, name);
}

/** User ids for usernames, emails or ids, as the flags name them. */
async function userIds(client: CoveClient, names: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const name of names) ids.push((await client.user(name)).id);
  return ids;
}

function printGroup(context: CommandContext, group: Group, said: string): void {
  if (context.json) printJson(context.io, group);
  else context.say(said);
}

const createGroup: CommandSpec = {
  name: 'create',
  summary: 'Create a group',
  arguments: [{ name: 'name', description: 'Name', required: true }],
  options: [
    orgOption,
    { flags: '--display-name <name>', description: 'Display name' },
    { flags: '-u, --avatar-url <url>', description: 'Avatar URL' },
    quotaOption,
  ],
  async run(context, [name = ''], options) {
    const client = await context.client();
    const allowance = quotaAllowance(options);
    const displayName = stringOption(options, 'displayName');
    const avatarUrl = stringOption(options, 'avatarUrl');
    const group = await client.createGroup(String(options['org']), {
      name,
      ...(displayName !== undefined ? { display_name: displayName } : {}),
      ...(avatarUrl !== undefined ? { avatar_url: avatarUrl } : {}),
      ...(allowance !== undefined ? { quota_allowance: allowance } : {}),
    });
    printGroup(context, group, `Created group ${group.name}.`);
  },
};

const listGroups: CommandSpec = {
  name: 'list',
  aliases: ['ls'],
  summary: 'List the groups of an organization',
  options: [orgOption],
  columns: GROUP_COLUMNS,
  async run(context, _args, options) {
    const groups = await (await context.client()).organizationGroups(String(options['org']));
    if (groups.length === 0 && !context.json) {
      context.say(`No groups in ${String(options['org'])}.`);
      return;
    }
    context.printData(groups, GROUP_COLUMNS);
  },
};

const memberFlags: OptionSpec[] = [
  { flags: '-a, --add-users <user>', description: 'Users to add, by username or id (repeatable, comma-separated)' },
  { flags: '-r, --rm-users <user>', description: 'Users to remove, by username or id (repeatable, comma-separated)' },
];

const editGroup: CommandSpec = {
  name: 'edit',
  summary: "Change a group's name, display name, avatar, allowance or members",
  arguments: [{ name: 'name', description: 'Name of the group', required: true }],
  options: [
    orgOption,
    { flags: '-n, --name <name>', description: 'New name' },
    { flags: '--display-name <name>', description: 'Display name' },
    { flags: '-u, --avatar-url <url>', description: 'Avatar URL' },
    quotaOption,
  ],
  configure: repeatableOptions(memberFlags),
  async run(context, [name = ''], options) {
    const client = await context.client();
    const group = await groupNamed(client, String(options['org']), name);
    const listed = (key: string) => listOption(options, key).flatMap(splitCommaList);
    const allowance = quotaAllowance(options);
    const displayName = stringOption(options, 'displayName');
    const avatarUrl = stringOption(options, 'avatarUrl');
    const newName = stringOption(options, 'name');
    const request: PatchGroupRequest = {
      add_users: await userIds(client, listed('addUsers')),
      remove_users: await userIds(client, listed('rmUsers')),
      ...(newName !== undefined ? { name: newName } : {}),
      ...(displayName !== undefined ? { display_name: displayName } : {}),
      ...(avatarUrl !== undefined ? { avatar_url: avatarUrl } : {}),
      ...(allowance !== undefined ? { quota_allowance: allowance } : {}),
    };
    const edited = await client.patchGroup(group.id, request);
    printGroup(context, edited, `Changed group ${edited.name}.`);
  },
};

const deleteGroup: CommandSpec = {
  name: 'delete',
  aliases: ['rm'],
  summary: 'Delete a group',
  arguments: [{ name: 'name', description: 'Name of the group', required: true }],
  options: [orgOption],
  async run(context, [name = ''], options) {
    const client = await context.client();
    const group = await groupNamed(client, String(options['org']), name);
    const result = await client.deleteGroup(group.id);
    if (context.json) printJson(context.io, result);
    else context.say(`Deleted group ${group.name}.`);
  },
};

const groupMembers: CommandSpec = {
  name: 'members',
  summary: 'List the members of a group',
  arguments: [{ name: 'name', description: 'Name of the group', required: true }],
  options: [orgOption],
  columns: MEMBER_COLUMNS,
  async run(context, [name = ''], options) {
    const group = await groupNamed(await context.client(), String(options['org']), name);
    context.printData(group.members, MEMBER_COLUMNS);
  },
};

/**
 * `cove groups`: groups of an organization. Further subcommands (such as `sync`) join by being
 * listed in `subcommands`.
 */
export const groupsCommand: CommandSpec = {
  name: 'groups',
  aliases: ['group'],
  summary: 'Create, list, edit and delete groups, and list their members',
  subcommands: [createGroup, listGroups, editGroup, deleteGroup, groupMembers],
};
