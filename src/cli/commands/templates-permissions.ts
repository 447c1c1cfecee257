import type { CoveClient } from '../../sdk/client.js';
import type { Template, TemplateACL, TemplateRole } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import type { Column } from '../output.js';
import { listOption, orgOption, repeatableOptions, requireTemplate } from './templates-common.js';

/** One entry of a template's ACL as the command prints it. */
interface PermissionRow {
  readonly type: 'user' | 'group';
  readonly name: string;
  readonly role: TemplateRole;
  readonly id: string;
  /** For a group, how many members it has. */
  readonly members: number | null;
}

const PERMISSION_COLUMNS: Column<PermissionRow>[] = [
  { heading: 'type', value: (row) => row.type },
  { heading: 'name', value: (row) => row.name },
  { heading: 'role', value: (row) => row.role },
  { heading: 'members', value: (row) => (row.members === null ? '' : String(row.members)), hidden: true },
  { heading: 'id', value: (row) => row.id, hidden: true },
];

const ROLES: readonly string[] = ['use', 'admin'];

function permissionRows(acl: TemplateACL): PermissionRow[] {
  return [
    ...acl.users.map((user) => ({ type: 'user' as const, name: user.username, role: user.role, id: user.id, members: null })),
    ...acl.group.map((group) => ({
      type: 'group' as const,
      name: group.name,
      role: group.role,
      id: group.id,
      members: group.total_member_count,
    })),
  ];
}

/** `NAME:ROLE` split and checked; `flag` names the option in errors. */
function nameAndRole(value: string, flag: string): { name: string; role: TemplateRole } {
  const at = value.lastIndexOf(':');
  const name = at < 0 ? '' : value.slice(0, at);
  const role = at < 0 ? '' : value.slice(at + 1);
  if (name === '' || !ROLES.includes(role)) throw new CliError(`${flag} takes NAME:ROLE with ROLE "use" or "admin", not "${value}".`);
  return { name, role: role as TemplateRole };
}

/**
 * The changes the options ask for, as user and group ids to roles. Names are looked up among those
 * the ACL could name and those it names now (so an entry can be removed even if its user could no
 * longer be added).
 */
async function requestedChanges(
  client: CoveClient,
  template: Template,
  current: TemplateACL,
  options: Readonly<Record<string, unknown>>,
): Promise<{ user_perms: Record<string, TemplateRole>; group_perms: Record<string, TemplateRole> } | undefined> {
  const users = [
    ...listOption(options, 'user').map((value) => nameAndRole(value, '--user')),
    ...listOption(options, 'removeUser').map((name) => ({ name, role: '' as const })),
  ];
  const groups = [
    ...listOption(options, 'group').map((value) => nameAndRole(value, '--group')),
    ...listOption(options, 'removeGroup').map((name) => ({ name, role: '' as const })),
  ];
  if (users.length === 0 && groups.length === 0) return undefined;
  const available = await client.templateACLAvailable(template.id);
  const userIds = new Map<string, string>();
  for (const user of [...available.users, ...current.users]) userIds.set(user.username.toLowerCase(), user.id);
  const groupIds = new Map<string, string>();
  for (const group of [...available.groups, ...current.group]) groupIds.set(group.name.toLowerCase(), group.id);
  const pick = (known: Map<string, string>, what: string, name: string) => {
    const id = known.get(name.toLowerCase());
    if (id === undefined) throw new CliError(`No ${what} "${name}" in the organization of template "${template.name}".`);
    return id;
  };
  return {
    user_perms: Object.fromEntries(users.map(({ name, role }) => [pick(userIds, 'user', name), role])),
    group_perms: Object.fromEntries(groups.map(({ name, role }) => [pick(groupIds, 'group', name), role])),
  };
}

/** `cove templates permissions NAME [--user NAME:ROLE ...]`: shows a template's ACL, changing it first when asked. */
export const permissionsCommand: CommandSpec = {
  name: 'permissions',
  aliases: ['acl'],
  summary: 'Show or change who may use and administer a template',
  description:
    'Without options, lists the users and groups the template\'s permissions name, with their role: "use" lets ' +
    'them see the template and create workspaces from it, "admin" also lets them edit it and its permissions. ' +
    'With --user, --group, --remove-user or --remove-group (each repeatable), changes those entries first and ' +
    'then lists the result. The organization\'s "Everyone" group stands for all of its members.',
  arguments: [{ name: 'template', description: 'Template name', required: true }],
  options: [orgOption],
  configure: repeatableOptions([
    { flags: '--user <name:role>', description: 'Give a user a role, use or admin (repeatable)' },
    { flags: '--group <name:role>', description: 'Give a group a role, use or admin (repeatable)' },
    { flags: '--remove-user <name>', description: 'Remove a user from the permissions (repeatable)' },
    { flags: '--remove-group <name>', description: 'Remove a group from the permissions (repeatable)' },
  ]),
  columns: PERMISSION_COLUMNS,
  examples: [
    'cove templates permissions python',
    'cove templates permissions python --group Everyone:use',
    'cove templates permissions python --user alice:admin --group data-science:use --remove-group Everyone',
  ],
  async run(context, [name = ''], options) {
    const client = await context.client();
    const template = await requireTemplate(client, String(options['org']), name);
    let acl = await client.templateACL(template.id);
    const changes = await requestedChanges(client, template, acl, options);
    if (changes) {
      await client.updateTemplateACL(template.id, changes);
      context.say(`Updated the permissions of template "${template.name}".`);
      acl = await client.templateACL(template.id);
    }
    context.printData(permissionRows(acl), PERMISSION_COLUMNS);
    return 0;
  },
};
