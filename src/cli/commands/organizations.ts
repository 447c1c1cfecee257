import type { Organization, OrganizationMemberWithUser } from '../../sdk/wire/index.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printData, printJson } from '../output.js';

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
];

function printOrg(context: CommandContext, organization: Organization): void {
  if (context.json) printJson(context.io, organization);
  else printData(context.io, 'table', [organization], ORG_COLUMNS);
}

const orgOption = { flags: '-O, --org <organization>', description: 'Organization name or id', default: 'default' };

/** `cove organizations`: organizations and their members. */
export const organizationsCommand: CommandSpec = {
  name: 'organizations',
  aliases: ['orgs', 'organization'],
  summary: 'Manage organizations and their members',
  subcommands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'List the organizations you can see',
      async run(context) {
        printData(context.io, context.global.output, await (await context.client()).organizations(), ORG_COLUMNS);
      },
    },
    {
      name: 'create',
      summary: 'Create an organization',
      arguments: [{ name: 'name', description: 'Name', required: true }],
      options: [
        { flags: '--display-name <name>', description: 'Display name' },
        { flags: '--description <text>', description: 'Description' },
      ],
      async run(context, [name = ''], options) {
        const organization = await (await context.client()).createOrganization({
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
      async run(context, [organization = 'default']) {
        printOrg(context, await (await context.client()).organization(organization));
      },
    },
    {
      name: 'delete',
      summary: 'Delete an organization',
      arguments: [{ name: 'organization', description: 'Name or id', required: true }],
      async run(context, [organization = '']) {
        const result = await (await context.client()).deleteOrganization(organization);
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
          async run(context, _args, options) {
            const members = await (await context.client()).organizationMembers(String(options['org']));
            printData(context.io, context.global.output, members, MEMBER_COLUMNS);
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
            const member = await (await context.client()).setMemberRoles(String(options['org']), user, roles);
            if (context.json) printJson(context.io, member);
            else context.say(`${user}: ${member.roles.map((r) => r.name).join(', ') || 'no extra roles'}`);
          },
        },
      ],
    },
  ],
};
