import { readFileSync } from 'node:fs';
import type {
  AssignableRole,
  CustomRoleRequest,
  Organization,
  OrganizationMemberWithUser,
  Permission,
  RoleObject,
} from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { confirm } from '../confirm.js';
import { printJson } from '../output.js';
import { givingRoles } from '../unknown-role.js';
import { organizationName } from './templates-common.js';

const ORG_COLUMNS = [
  { heading: 'name', value: (o: Organization) => o.name },
  { heading: 'display name', value: (o: Organization) => o.display_name },
  { heading: 'default', value: (o: Organization) => (o.is_default ? 'yes' : '') },
  { heading: 'id', value: (o: Organization) => o.id },
];

const MEMBER_COLUMNS = [
  { heading: 'username', value: (m: OrganizationMemberWithUser) => m.username },
  { heading: 'email', value: (m: OrganizationMemberWithUser) => m.email },
  { heading: 'roles', value: (m: OrganizationMemberWithUser) => m.roles.map((r) => r.name).join(',') },
  { heading: 'user id', value: (m: OrganizationMemberWithUser) => m.user_id, hidden: true },
  { heading: 'name', value: (m: OrganizationMemberWithUser) => m.name ?? '', hidden: true },
];

function printOrg(context: CommandContext, organization: Organization): void {
  if (context.json) printJson(context.io, organization);
  else context.printTable([organization], ORG_COLUMNS);
}

const describePermissions = (permissions: readonly Permission[]) =>
  permissions.map((p) => `${p.negate ? '-' : ''}${p.resource_type}:${p.action}`).join(',');

const ROLE_COLUMNS = [
  { heading: 'name', value: (r: AssignableRole) => r.name },
  { heading: 'display name', value: (r: AssignableRole) => r.display_name },
  { heading: 'built in', value: (r: AssignableRole) => (r.built_in ? 'yes' : '') },
  { heading: 'assignable', value: (r: AssignableRole) => (r.assignable ? 'yes' : '') },
  { heading: 'organization permissions', value: (r: AssignableRole) => describePermissions(r.organization_permissions) },
];

/**
 * The custom role a `roles create` or `roles update` asks for: a JSON file (`--file`, `-` for
 * standard input) as the API takes it, with the flags on top.
 */
function customRoleFrom(context: CommandContext, name: string, options: Readonly<Record<string, unknown>>): CustomRoleRequest {
  let role: CustomRoleRequest = { name };
  const file = options['file'];
  if (typeof file === 'string') {
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (error) {
      throw new CliError(`Cannot read ${file}: ${(error as Error).message}`);
    }
    try {
      role = { ...(JSON.parse(text) as CustomRoleRequest) };
    } catch (error) {
      throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`, {
        hint: 'The file holds {"name", "display_name", "organization_permissions": [{"resource_type", "action", "negate"}]}.',
      });
    }
    if (name && role.name && role.name !== name) throw new CliError(`The role is named "${name}" but ${file} names "${role.name}".`);
    role = { ...role, name: name || role.name };
  }
  if (!role.name) throw new CliError('Name the role, as an argument or as "name" in --file.');
  if (typeof options['displayName'] === 'string') role = { ...role, display_name: options['displayName'] };
  const flags = options['permission'];
  if (Array.isArray(flags)) role = { ...role, organization_permissions: flags.flatMap((f) => String(f).split(',')).map(parsePermission) };
  return role;
}

function parsePermission(text: string): Permission {
  const match = /^(-)?([a-z_]+):([a-z_]+)$/.exec(text.trim());
  if (!match?.[2] || !match[3]) {
    throw new CliError(`"${text}" is not a permission.`, { hint: 'Write permissions as resource:action, e.g. template:read.' });
  }
  return { negate: match[1] === '-', resource_type: match[2], action: match[3] };
}

function printRoles(context: CommandContext, roles: readonly RoleObject[], verb: string, name: string): void {
  if (context.json) printJson(context.io, roles);
  else context.say(`${verb} role ${name}.`);
}

const roleOptions = [
  { flags: '--display-name <name>', description: 'Display name' },
  { flags: '--permission <resource:action...>', description: 'Organization permissions, e.g. template:read (repeatable, comma-separated)' },
  { flags: '-f, --file <path>', description: 'A JSON file with the role as the API takes it; - reads standard input' },
];

const orgOption = {
  flags: '-O, --org <organization>',
  env: 'COVE_ORGANIZATION',
  description: 'Organization name or id',
  default: 'default',
};

/** `cove organizations`: organizations and their members. */
export const organizationsCommand: CommandSpec = {
  name: 'organizations',
  aliases: ['organization', 'org', 'orgs'],
  summary: 'Manage organizations and their members',
  subcommands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'List the organizations you can see',
      columns: ORG_COLUMNS,
      async run(context) {
        context.printData(await (await context.client()).organizations(), ORG_COLUMNS);
      },
    },
    {
      name: 'create',
      summary: 'Create an organization',
      arguments: [{ name: 'name', description: 'Name', required: true }],
      columns: ORG_COLUMNS,
      options: [
        { flags: '--display-name <name>', description: 'Display name' },
        { flags: '--description <text>', description: 'Description' },
      ],
      async run(context, [name = ''], options) {
        const organization = await (
          await context.client()
        ).createOrganization({
          name,
          ...(typeof options['displayName'] === 'string' ? { display_name: options['displayName'] } : {}),
          ...(typeof options['description'] === 'string' ? { description: options['description'] } : {}),
        });
        printOrg(context, organization);
      },
    },
    {
      name: 'show',
      summary: 'Show an organization',
      arguments: [{ name: 'organization', description: 'Name or id (default: the default organization)' }],
      columns: ORG_COLUMNS,
      async run(context, [organization = 'default']) {
        printOrg(context, await (await context.client()).organization(organization));
      },
    },
    {
      name: 'delete',
      aliases: ['rm'],
      summary: 'Delete an organization',
      arguments: [{ name: 'organization', description: 'Name or id', required: true }],
      options: [{ flags: '-y, --yes', description: 'Delete without asking', default: false }],
      async run(context, [organization = ''], options) {
        const client = await context.client();
        await confirm(context, `Delete organization "${organization}"? Its templates, groups and roles go with it.`, {
          yes: options['yes'] === true,
          action: `Deleting organization "${organization}"`,
          canceled: 'nothing was deleted',
        });
        const result = await client.deleteOrganization(organization);
        if (context.json) printJson(context.io, result);
        else context.say(result.message);
      },
    },
    {
      name: 'members',
      summary: 'List, add and remove members, and set their roles',
      subcommands: [
        {
          name: 'list',
          aliases: ['ls'],
          summary: 'List members',
          options: [orgOption],
          columns: MEMBER_COLUMNS,
          async run(context, _args, options) {
            const members = await (await context.client()).organizationMembers(String(options['org']));
            context.printData(members, MEMBER_COLUMNS);
          },
        },
        {
          name: 'add',
          summary: 'Add a user',
          arguments: [{ name: 'user', description: 'Username or id', required: true }],
          options: [orgOption],
          async run(context, [user = ''], options) {
            const member = await (await context.client()).addMember(String(options['org']), user);
            if (context.json) printJson(context.io, member);
            else context.say(`Added ${user} to ${String(options['org'])}.`);
          },
        },
        {
          name: 'remove',
          aliases: ['rm'],
          summary: 'Remove a user',
          arguments: [{ name: 'user', description: 'Username or id', required: true }],
          options: [orgOption],
          async run(context, [user = ''], options) {
            await (await context.client()).removeMember(String(options['org']), user);
            if (context.json) printJson(context.io, { user, removed: true });
            else context.say(`Removed ${user} from ${String(options['org'])}.`);
          },
        },
        {
          name: 'roles',
          summary: "Set a member's organization roles",
          arguments: [
            { name: 'user', description: 'Username or id', required: true },
            { name: 'roles', description: 'Roles, e.g. organization-admin', variadic: true },
          ],
          options: [orgOption],
          async run(context, args, options) {
            const [user = '', ...roles] = args.flat();
            const client = await context.client();
            const organization = String(options['org']);
            const member = await givingRoles(
              () => client.setMemberRoles(organization, user, roles),
              roles,
              () => client.organizationRoles(organization),
              async () => `in organization ${await organizationName(client, organization)}`,
            );
            if (context.json) printJson(context.io, member);
            else context.say(`${user}: ${member.roles.map((r) => r.name).join(', ') || 'no extra roles'}`);
          },
        },
      ],
    },
    {
      name: 'roles',
      summary: 'List, create, update and delete custom organization roles',
      subcommands: [
        {
          name: 'list',
          aliases: ['ls'],
          summary: 'List the roles of an organization, built-in and custom',
          options: [orgOption],
          columns: ROLE_COLUMNS,
          async run(context, _args, options) {
            const client = await context.client();
            const organization = await client.organization(String(options['org']));
            context.printData(await client.organizationRoles(organization.id), ROLE_COLUMNS);
          },
        },
        {
          name: 'create',
          summary: 'Create a custom role',
          arguments: [{ name: 'name', description: 'Role name (or "name" in --file)' }],
          options: [orgOption, ...roleOptions],
          examples: [
            'cove organizations roles create template-reader --permission template:read',
            'cove organizations roles create --file role.json -O research',
          ],
          async run(context, [name = ''], options) {
            const role = customRoleFrom(context, name, options);
            const created = await (await context.client()).createCustomRole(String(options['org']), role);
            printRoles(context, [created], 'Created', role.name);
          },
        },
        {
          name: 'update',
          summary: 'Replace the permissions of a custom role',
          arguments: [{ name: 'name', description: 'Role name (or "name" in --file)' }],
          options: [orgOption, ...roleOptions],
          async run(context, [name = ''], options) {
            const role = customRoleFrom(context, name, options);
            const updated = await (await context.client()).updateCustomRole(String(options['org']), role);
            printRoles(context, [updated], 'Updated', role.name);
          },
        },
        {
          name: 'delete',
          aliases: ['rm'],
          summary: 'Delete a custom role',
          arguments: [{ name: 'name', description: 'Role name', required: true }],
          options: [orgOption],
          async run(context, [name = ''], options) {
            const roles = await (await context.client()).deleteCustomRole(String(options['org']), name);
            printRoles(context, roles, 'Deleted', name);
          },
        },
      ],
    },
  ],
};
