import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { AuthMethods, User } from '../../sdk/wire/users.js';
import { CliError } from '../cli-error.js';
import { writeSavedConfig, type SecretStoreKind } from '../cli-config.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { askUntilValid, canPrompt, prompt } from '../prompt.js';
import { askNewPassword, emailProblem, systemUsername, usernameProblem } from '../account-answers.js';

/** `cove login [url]`: signs in, creating the first user on a deployment that has none. */
export const loginCommand: CommandSpec = {
  name: 'login',
  summary: 'Sign in to a deployment (creates its first user on a new one)',
  arguments: [{ name: 'url', description: 'Deployment URL, e.g. http://127.0.0.1:3000 (default: the saved one)' }],
  options: [
    { flags: '--email <email>', description: 'Email to sign in with (prompted for on a terminal)' },
    { flags: '--password <password>', description: 'Password to sign in with (prompted for on a terminal)' },
    {
      flags: '--first-user-email <email>',
      description: 'Email of the first user, on a deployment that has none',
      env: 'COVE_FIRST_USER_EMAIL',
    },
    { flags: '--first-user-username <name>', description: 'Username of the first user', env: 'COVE_FIRST_USER_USERNAME' },
    { flags: '--first-user-password <password>', description: 'Password of the first user', env: 'COVE_FIRST_USER_PASSWORD' },
    { flags: '--first-user-full-name <name>', description: 'Full name of the first user', env: 'COVE_FIRST_USER_FULL_NAME' },
  ],
  subcommands: [
    {
      name: 'token',
      summary: 'Print the session token of the current deployment, for scripts',
      description:
        'Print the session token the CLI uses for the current deployment (--url, COVE_URL or the ' +
        'saved one): --token or COVE_SESSION_TOKEN when given, else the one "cove login" saved.',
      examples: ['curl -H "Service-Session-Token: $(cove login token)" https://cove.example.com/api/v2/users/me'],
      async run(context) {
        const url = context.deploymentUrl();
        const token = await context.sessionToken(url);
        if (!token) throw new CliError(`You are not signed in to ${url}.`, { hint: `Run "cove login ${url}" first.` });
        context.io.stdout.write(`${token}\n`);
        return 0;
      },
    },
  ],
  examples: [
    'cove login http://127.0.0.1:3000',
    "cove login http://127.0.0.1:3000 --first-user-email a@example.com --first-user-username admin --first-user-password 'S3cure!pass-phrase'",
    'cove login --token "$COVE_SESSION_TOKEN" https://cove.example.com',
  ],
  async run(context, [urlArg], options) {
    const url = normalizeUrl(urlArg ?? context.global.url ?? context.io.env['COVE_URL'] ?? context.savedConfig().url);
    const anonymous = context.newClient(url);
    try {
      await anonymous.buildInfo();
    } catch (error) {
      if (error instanceof ApiError) throw new CliError(`${url} does not look like a Cove deployment (HTTP ${error.status}).`);
      throw error;
    }

    const given = context.global.token ?? context.io.env['COVE_SESSION_TOKEN'];
    const token = given ?? (await signIn(context, anonymous, options));
    const signedIn = anonymous.withToken(token);
    let user: User;
    let store: SecretStoreKind;
    try {
      user = await signedIn.user('me');
      const secrets = await context.secrets();
      store = await secrets.save(url, token, (line) => context.io.stderr.write(`${line}\n`));
    } catch (error) {
      // A session this login created and cannot keep must not stay valid on the server, unseen.
      if (given === undefined) await endSession(signedIn);
      // A token given to sign in with was never a session of this user: "sign in again" would mislead.
      if (given !== undefined && error instanceof ApiError && error.status === 401)
        throw new CliError(`The token is not valid on ${url}.`, {
          ...(error.detail ? { detail: error.detail } : {}),
          hint: 'Check that it was copied whole and has not expired or been deleted, or run "cove login" without --token.',
        });
      throw error;
    }

    writeSavedConfig(context.configDir, { ...context.savedConfig(), url });
    if (context.json) printJson(context.io, { url, username: user.username, email: user.email, secret_store: store });
    else context.say(`Welcome to Cove, ${user.username}! You are signed in to ${url}.`);
    return 0;
  },
};

async function endSession(client: CoveClient): Promise<void> {
  try {
    await client.logout();
  } catch {
    // Best effort: the error that made the login fail is the one to report.
  }
}

async function signIn(context: CommandContext, client: CoveClient, options: Readonly<Record<string, unknown>>): Promise<string> {
  if (!(await client.hasFirstUser())) return createFirstUser(context, client, options);
  const methods = await authMethods(client);
  const providers = [
    ...(methods?.oidc.enabled ? [methods.oidc.signInText || 'OpenID Connect'] : []),
    ...(methods?.github.enabled ? ['GitHub'] : []),
  ];
  const emailGiven = typeof options['email'] === 'string' && options['email'] !== '';
  const browserUrl = `${client.url}/cli-auth`;
  // Where password sign-in is off, users sign in through a provider in a browser: the CLI cannot
  // do that flow itself, so it sends them to a page that hands out a token to paste.
  if (methods?.password.enabled === false && !emailGiven) return tokenFromBrowser(context, browserUrl, providers);
  if (providers.length > 0 && !emailGiven) {
    context.io.stderr.write(
      `To sign in with ${providers.join(' or ')}, open ${browserUrl} and run "cove login --token <token> ${client.url}".\n`,
    );
  }
  const email = await valueOrPrompt(context, options['email'], 'Email: ', '--email');
  const password = await valueOrPrompt(context, options['password'], 'Password: ', '--password', { secret: true });
  return (await client.login(email, password)).session_token;
}

/** The sign-in methods, or undefined from a daemon too old to say. */
async function authMethods(client: CoveClient): Promise<AuthMethods | undefined> {
  try {
    return await client.authMethods();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

async function tokenFromBrowser(context: CommandContext, url: string, providers: readonly string[]): Promise<string> {
  const through = providers.length > 0 ? ` with ${providers.join(' or ')}` : '';
  context.io.stderr.write(
    `Password sign-in is disabled on this deployment. Open this page in a browser, sign in${through}, and copy the session token:\n\n  ${url}\n\n`,
  );
  if (!canPrompt(context.io)) {
    throw new CliError('A session token from the browser is needed to sign in.', {
      hint: `Open ${url}, then run "cove login --token <token> ${url.replace(/\/cli-auth$/, '')}".`,
    });
  }
  const token = (await prompt(context.io, 'Session token: ', { secret: true })).trim();
  if (token === '') throw new CliError('No session token was pasted.');
  return token;
}

async function createFirstUser(context: CommandContext, client: CoveClient, options: Readonly<Record<string, unknown>>): Promise<string> {
  context.say(`${client.url} has no users yet; creating the first one, who will own the deployment.`);
  // Each answer is checked as it is typed and asked again when wrong, so that a typo costs one
  // question, not the whole sign-up; values given as flags are the deployment's to judge.
  const email = await valueOrPrompt(context, options['firstUserEmail'], 'Email: ', '--first-user-email', { check: emailProblem });
  const username = await valueOrPrompt(context, options['firstUserUsername'], 'Username: ', '--first-user-username', {
    check: usernameProblem,
    defaultValue: systemUsername(),
  });
  const password =
    typeof options['firstUserPassword'] === 'string' && options['firstUserPassword'] !== ''
      ? options['firstUserPassword']
      : await newPassword(context);
  const name = typeof options['firstUserFullName'] === 'string' ? options['firstUserFullName'] : undefined;
  await client.createFirstUser({ email, username, password, ...(name ? { name } : {}) });
  return (await client.login(email, password)).session_token;
}

/** A password typed twice: a weak one, or a confirmation that differs, asks for it again. */
async function newPassword(context: CommandContext): Promise<string> {
  if (!canPrompt(context.io)) throw new CliError('--first-user-password is required when not running in a terminal.');
  return askNewPassword(context.io, 'Password: ');
}

/**
 * A flag's value, or else the answer to `question` on a terminal, asked again while it is empty or
 * `check` finds a problem in it.
 */
async function valueOrPrompt(
  context: CommandContext,
  value: unknown,
  question: string,
  flag: string,
  options: {
    readonly secret?: boolean;
    readonly check?: (answer: string) => string | undefined;
    readonly defaultValue?: string | undefined;
  } = {},
): Promise<string> {
  if (typeof value === 'string' && value !== '') return value;
  if (!canPrompt(context.io)) throw new CliError(`${flag} is required when not running in a terminal.`);
  const check = options.check ?? ((answer: string) => (answer === '' ? `A value for ${flag} is required.` : undefined));
  return askUntilValid(context.io, question, check, options);
}

function normalizeUrl(url: string | undefined): string {
  if (!url) throw new CliError('Which deployment? Give its URL.', { hint: 'cove login http://127.0.0.1:3000' });
  const withScheme = /^https?:\/\//.test(url) ? url : `http://${url}`;
  try {
    const parsed = new URL(withScheme);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    throw new CliError(`"${url}" is not a URL.`, { hint: 'cove login http://127.0.0.1:3000' });
  }
}
