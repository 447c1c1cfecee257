import { randomBytes } from 'node:crypto';
import type { User } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { humanTime, printJson } from '../output.js';
import { givingRoles } from '../unknown-role.js';

const USER_COLUMNS = [
  { heading: 'username', value: (u: User) => u.username },
  { heading: 'email', value: (u: User) => u.email },
  { heading: 'status', value: (u: User) => u.status },
  { heading: 'roles', value: (u: User) => u.roles.map((r) => r.name).join(',') },
  { heading: 'last seen', value: (u: User) => humanTime(u.last_seen_at) },
  { heading: 'id', value: (u: User) => u.id, hidden: true },
  { heading: 'name', value: (u: User) => u.name ?? '', hidden: true },
  { heading: 'login type', value: (u: User) => u.login_type, hidden: true },
  { heading: 'created at', value: (u: User) => humanTime(u.created_at), hidden: true },
];

function printUser(context: CommandContext, user: User): void {
  if (context.json) printJson(context.io, user);
  else context.printTable([user], USER_COLUMNS);
}

/** A password for a new account: 24 characters from 18 random bytes, far above the strength rules. */
function generatePassword(): string {
  return randomBytes(18).toString('base64url');
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
      columns: USER_COLUMNS,
      async run(context, _args, options) {
        const { users } = await (await context.client()).users(typeof options['search'] === 'string' ? { q: options['search'] } : {});
        context.printData(users, USER_COLUMNS);
      },
    },
    {
      name: 'create',
      summary: 'Create a user',
      options: [
        { flags: '--email <email>', description: 'Email (required)' },
        { flags: '--username <name>', description: 'Username (required)' },
        { flags: '--full-name <name>', description: 'Full name' },
        { flags: '--password <password>', description: 'Password (for password login; default: a generated one, printed once)' },
        {
          flags: '--login-type <type>',
          description: 'password, none, oidc or github (the last two need the provider configured)',
          default: 'password',
        },
        { flags: '--org <organization>', description: 'Organization to join (name or id)', default: 'default' },
      ],
      columns: USER_COLUMNS,
      async run(context, _args, options) {
        const client = await context.client();
        const email = options['email'];
        const username = options['username'];
        if (typeof email !== 'string' || typeof username !== 'string') throw new CliError('--email and --username are required.');
        const loginType = String(options['loginType']);
        // As the reference does, a password account made without a password gets a strong one to hand over.
        const generated = loginType === 'password' && typeof options['password'] !== 'string' ? generatePassword() : undefined;
        const password = typeof options['password'] === 'string' ? options['password'] : generated;
        const organization = await client.organization(String(options['org']));
        const user = await client.createUser({
          email,
          username,
          login_type: loginType,
          organization_ids: [organization.id],
          ...(typeof options['fullName'] === 'string' ? { name: options['fullName'] } : {}),
          ...(password !== undefined ? { password } : {}),
        });
        if (context.json) {
          printJson(context.io, generated === undefined ? user : { ...user, password: generated });
          return;
        }
        printUser(context, user);
        if (generated !== undefined) {
          context.say(`\nPassword: ${generated}`);
          context.say(`This is shown only once: hand it to ${user.username} over a secure channel; they can change it after signing in.`);
        }
      },
    },
    ...(['show', 'suspend', 'activate', 'delete'] as const).map((verb): CommandSpec => ({
      name: verb,
      summary: `${verb[0]?.toUpperCase()}${verb.slice(1)} a user`,
      arguments: [{ name: 'user', description: 'Username, id or "me"', required: true }],
      ...(verb === 'delete' ? {} : { columns: USER_COLUMNS }),
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
      description: 'Replace the site roles of a user with the ones named; --clear removes them all.',
      arguments: [
        { name: 'user', description: 'Username or id', required: true },
        { name: 'roles', description: 'Site roles, e.g. auditor template-admin', variadic: true },
      ],
      options: [{ flags: '--clear', description: 'Remove every site role of the user', default: false }],
      columns: USER_COLUMNS,
      examples: ['cove users roles alice template-admin auditor', 'cove users roles alice --clear'],
      async run(context, args, options) {
        const [user = '', ...roles] = args.flat();
        const clear = options['clear'] === true;
        // An empty list would silently strip every role: that has to be asked for by name.
        if (roles.length === 0 && !clear)
          throw new CliError(`No roles given for "${user}".`, {
            hint: `Name them, e.g. "cove users roles ${user} template-admin", or pass --clear to remove every site role.`,
          });
        if (roles.length > 0 && clear) throw new CliError('Give roles or --clear, not both.');
        const client = await context.client();
        printUser(
          context,
          await givingRoles(
            () => client.setSiteRoles(user, roles),
            roles,
            () => client.siteRoles(),
            async () => 'on this deployment',
          ),
        );
      },
    },
  ],
};
