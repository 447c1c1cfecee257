import { formatDuration, nsToMs } from '../../lib/duration.js';
import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { ApiKeyWithOwner } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { readDurationFlag } from '../duration-flag.js';
import { humanTime, printJson, type Column } from '../output.js';

const createToken: CommandSpec = {
  name: 'create',
  summary: 'Create an API token and print it',
  options: [
    { flags: '--name <name>', env: 'COVE_TOKEN_NAME', description: 'Name of the token (default: a generated one)' },
    {
      flags: '--lifetime <duration>',
      env: 'COVE_TOKEN_LIFETIME',
      description:
        "How long the token lives, e.g. 7d, 720h or 1y (default: the deployment's; owners' tokens are capped at 168h unless the deployment raises it)",
    },
    { flags: '--scope <scope>', description: 'all or application_connect', default: 'all' },
    { flags: '--user <user>', env: 'COVE_TOKEN_USER', description: 'Create it for another user (owners only)', default: 'me' },
  ],
  examples: ['cove tokens create --name laptop --lifetime 7d', 'cove tokens create --user ci --name deploy --lifetime 30d'],
  async run(context, _args, options) {
    const client = await context.client();
    const lifetimeText = options['lifetime'];
    let lifetimeNs: number | undefined;
    if (typeof lifetimeText === 'string') {
      const ms = readDurationFlag(lifetimeText, '--lifetime');
      if (ms === undefined || ms <= 0) throw new CliError(`--lifetime "${lifetimeText}" is not a duration such as 30d, 12h or 90m.`);
      lifetimeNs = ms * 1_000_000;
    }
    const scope = options['scope'];
    if (scope !== 'all' && scope !== 'application_connect') throw new CliError('--scope must be all or application_connect.');
    const name = typeof options['name'] === 'string' ? options['name'] : undefined;
    const user = String(options['user']);
    const { key } = await client
      .createToken({ ...(name ? { token_name: name } : {}), ...(lifetimeNs ? { lifetime: lifetimeNs } : {}), scope }, user)
      .catch(async (error: unknown) => {
        throw await lifetimeRefusal(client, error, user, typeof lifetimeText === 'string' ? lifetimeText : '');
      });
    if (context.json) printJson(context.io, { key });
    else context.io.stdout.write(`${key}\n`);
    return 0;
  },
};

/**
 * A lifetime over the deployment's cap, said once with the cap and the server setting that sets
 * it: owners' tokens have their own, shorter cap, which surprises whoever signed up first.
 */
async function lifetimeRefusal(client: CoveClient, error: unknown, user: string, lifetime: string): Promise<unknown> {
  if (!(error instanceof ApiError) || error.status !== 400 || !/less than/.test(error.detail ?? '')) return error;
  const [config, owner] = await Promise.all([
    client.tokenConfig(user),
    client.user(user).then(
      (found) => found.roles.some((role) => role.name === 'owner'),
      () => false,
    ),
  ]);
  const cap = formatDuration(nsToMs(config.max_token_lifetime)).replace(/0s$/, '').replace(/h0m$/, 'h');
  const whose = user === 'me' ? 'your' : `${user}'s`;
  const setting = owner
    ? '--max-admin-token-lifetime (COVE_MAX_ADMIN_TOKEN_LIFETIME), which caps the tokens of owners'
    : '--max-token-lifetime (COVE_MAX_TOKEN_LIFETIME)';
  return new CliError(`A token lifetime of ${lifetime} is longer than ${whose} tokens may live: at most ${cap}.`, {
    hint: `Ask for --lifetime ${cap} or less; the deployment sets the cap with ${setting}.${owner ? ' Or create the token for a user who is not an owner, e.g. a CI user: --user ci.' : ''}`,
  });
}

/** The table's columns; `owner` is shown by default with --all. */
function tokenColumns(all: boolean): Column<ApiKeyWithOwner>[] {
  return [
    { heading: 'id', value: (t) => t.id },
    { heading: 'name', value: (t) => t.token_name },
    { heading: 'owner', value: (t) => t.username, hidden: !all },
    { heading: 'scope', value: (t) => t.scope },
    { heading: 'last used', value: (t) => humanTime(t.last_used) },
    { heading: 'expires at', value: (t) => humanTime(t.expires_at) },
    { heading: 'created at', value: (t) => humanTime(t.created_at), hidden: true },
  ];
}

const listTokens: CommandSpec = {
  name: 'list',
  aliases: ['ls'],
  summary: 'List API tokens',
  options: [{ flags: '-a, --all', description: 'Tokens of every user you may see', default: false }],
  columns: tokenColumns(false),
  async run(context, _args, options) {
    const client = await context.client();
    const tokens = await client.listTokens({ includeAll: options['all'] === true });
    context.printData(tokens, tokenColumns(options['all'] === true));
    return 0;
  },
};

const removeToken: CommandSpec = {
  name: 'remove',
  aliases: ['rm', 'delete'],
  summary: 'Remove an API token by name or id',
  arguments: [{ name: 'token', description: 'Name or id of the token', required: true }],
  async run(context, [nameOrId = '']) {
    const client = await context.client();
    const tokens = await client.listTokens();
    const token = tokens.find((t) => t.token_name === nameOrId) ?? tokens.find((t) => t.id === nameOrId);
    if (!token) throw new CliError(`No token named or with id "${nameOrId}".`, { hint: 'See "cove tokens list".' });
    await client.deleteApiKey(token.id);
    if (context.json) printJson(context.io, { id: token.id, token_name: token.token_name, removed: true });
    else context.say(`Removed token ${token.token_name} (${token.id}).`);
    return 0;
  },
};

/** `cove tokens`: API tokens for scripts and CI. */
export const tokensCommand: CommandSpec = {
  name: 'tokens',
  aliases: ['token'],
  summary: 'Create, list and remove API tokens',
  subcommands: [createToken, listTokens, removeToken],
};
