import { randomBytes } from 'node:crypto';
import type { User } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { humanTime, printJson } from '../output.js';
import { givingRoles } from '../unknown-role.js';
import { askNewPassword, emailProblem, usernameProblem } from '../account-answers.js';
import { askUntilValid, canPrompt, prompt } from '../prompt.js';

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

/** What a new user is made of: from the flags, else asked for on a terminal. */
interface NewUserAnswers {
  readonly username: string;
  readonly email: string;
  readonly name?: string | undefined;
  readonly password?: string | undefined;
}

/**
 * The flags' values, and answers on a terminal for the username and email not given, asked
 * again until they pass the rules. When either was asked for, the full name and the password
 * (empty: generate one) are asked too; a command given both flags asks nothing, as in the
 * reference, so scripts that ran before still run. Without a terminal, the missing flags are named.
 */
async function newUserAnswers(context: CommandContext, options: Readonly<Record<string, unknown>>): Promise<NewUserAnswers> {
  const flag = (key: string) => (typeof options[key] === 'string' && options[key] !== '' ? options[key] : undefined);
  const givenUsername = flag('username');
  const givenEmail = flag('email');
  const name = flag('fullName');
  const password = flag('password');
  if (givenUsername !== undefined && givenEmail !== undefined) return { username: givenUsername, email: givenEmail, name, password };
  if (!canPrompt(context.io)) {
    const missing = [...(givenUsername === undefined ? ['--username'] : []), ...(givenEmail === undefined ? ['--email'] : [])];
    throw new CliError(`cove users create needs ${missing.join(' and ')} (there is no terminal to ask on).`, {
      hint: `Run "cove users create --username ${givenUsername ?? 'NAME'} --email ${givenEmail ?? 'EMAIL'}".`,
    });
  }
  const io = context.io;
  const username = givenUsername ?? (await askUntilValid(io, 'Username: ', usernameProblem));
  const email = givenEmail ?? (await askUntilValid(io, 'Email: ', emailProblem));
  const typedName = name ?? ((await prompt(io, 'Full name (optional): ')).trim() || undefined);
  const wantsPassword = String(options['loginType']) === 'password' && password === undefined;
  const typedPassword = wantsPassword ? await askNewPassword(io, 'Password (empty: generate one): ', { allowEmpty: true }) : password;
  return { username, email, name: typedName, password: typedPassword || undefined };
}

/** `cove users`: manage the deployment's users. */
export const usersCommand: CommandSpec = {
  name: 'users',
  aliases: ['user'],
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
      description:
        'Create a user. On a terminal, cove asks for the username and email not given (and then for ' +
        'the full name and password, an empty password generating one); elsewhere --username and ' +
        '--email are required.',
      options: [
        { flags: '-e, --email <email>', description: 'Email (asked for on a terminal)' },
        { flags: '-u, --username <name>', description: 'Username (asked for on a terminal)' },
        { flags: '-n, --full-name <name>', description: 'Full name' },
        { flags: '-p, --password <password>', description: 'Password (for password login; default: a generated one, printed once)' },
        {
          flags: '--login-type <type>',
          description: 'password, none, oidc or github (the last two need the provider configured)',
          default: 'password',
        },
        { flags: '--org <organization>', description: 'Organization to join (name or id)', default: 'default', env: 'COVE_ORGANIZATION' },
      ],
      columns: USER_COLUMNS,
      examples: ['cove users create', 'cove users create -u alice -e alice@example.com --login-type none'],
      async run(context, _args, options) {
        const client = await context.client();
        const answers = await newUserAnswers(context, options);
        const loginType = String(options['loginType']);
        // As the reference does, a password account made without a password gets a strong one to hand over.
        const generated = loginType === 'password' && answers.password === undefined ? generatePassword() : undefined;
        const password = answers.password ?? generated;
        const organization = await client.organization(String(options['org']));
        const user = await client.createUser({
          email: answers.email,
          username: answers.username,
          login_type: loginType,
          organization_ids: [organization.id],
          ...(answers.name !== undefined ? { name: answers.name } : {}),
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
      ...(verb === 'delete' ? { aliases: ['rm'] } : { columns: USER_COLUMNS }),
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
