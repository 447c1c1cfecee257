import type { User } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { humanTime, printData, printJson } from '../output.js';

const USER_COLUMNS = [
  { heading: 'username', value: (u: User) => u.username },
  { heading: 'email', value: (u: User) => u.email },
  { heading: 'status', value: (u: User) => u.status },
  { heading: 'roles', value: (u: User) => u.roles.map((r) => r.name).join(',') },
  { heading: 'last seen', value: (u: User) => humanTime(u.last_seen_at) },
];

function printUser(context: CommandContext, user: User): void {
  if (context.json) printJson(context.io, user);
  else printData(context.io, 'table', [user], USER_COLUMNS);
}

/** `cove users`: manage the deployment's users. */
export const usersCommand: CommandSpec = {
  name: 'users',
  summary: 'List, create, show, suspend, activate and delete users',
  subcommands: [
    {
      name: 'list',
      aliases: ['ls'],
      summary: 'List users',
      options: [{ flags: '-q, --search <query>', description: 'Search, e.g. "status:active role:owner alice"' }],
      async run(context, _args, options) {
        const { users } = await (await context.client()).users(typeof options['search'] === 'string' ? { q: options['search'] } : {});
        printData(context.io, context.global.output, users, USER_COLUMNS);
      },
    },
    {
      name: 'create',
      summary: 'Create a user',
      options: [
        { flags: '--email <email>', description: 'Email (required)' },
        { flags: '--username <name>', description: 'Username (required)' },
        { flags: '--full-name <name>', description: 'Full name' },
        { flags: '--password <password>', description: 'Password (for password login)' },
        {
          flags: '--login-type <type>',
          description: 'password, none, oidc or github (the last two need the provider configured)',
          default: 'password',
        },
        { flags: '--org <organization>', description: 'Organization to join (name or id)', default: 'default' },
      ],
      async run(context, _args, options) {
        const client = await context.client();
        const email = options['email'];
        const username = options['username'];
        if (typeof email !== 'string' || typeof username !== 'string') throw new CliError('--email and --username are required.');
        const organization = await client.organization(String(options['org']));
        const user = await client.createUser({
          email,
          username,
          login_type: String(options['loginType']),
          organization_ids: [organization.id],
          ...(typeof options['fullName'] === 'string' ? { name: options['fullName'] } : {}),
          ...(typeof options['password'] === 'string' ? { password: options['password'] } : {}),
        });
        printUser(context, user);
      },
    },
    ...(['show', 'suspend', 'activate', 'delete'] as const).map((verb): CommandSpec => ({
      name: verb,
      summary: `${verb[0]?.toUpperCase()}${verb.slice(1)} a user`,
      arguments: [{ name: 'user', description: 'Username, id or "me"', required: true }],
      async run(context, [user = '']) {
        const client = await context.client();
        if (verb === 'delete') {
          const result = await client.deleteUser(user);
          if (context.json) printJson(context.io, result);
          else context.say(result.message);
          return;
        }
        const action = {
          show: () => client.user(user),
          suspend: () => client.suspendUser(user),
          activate: () => client.activateUser(user),
        }[verb];
        printUser(context, await action());
      },
    })),
    {
      name: 'roles',
      summary: "Set a user's site roles",
      arguments: [
        { name: 'user', description: 'Username or id', required: true },
        { name: 'roles', description: 'Site roles, e.g. auditor template-admin (none to clear)', variadic: true },
      ],
      async run(context, args) {
        const [user = '', ...roles] = args.flat();
        printUser(context, await (await context.client()).setSiteRoles(user, roles));
      },
    },
  ],
};
