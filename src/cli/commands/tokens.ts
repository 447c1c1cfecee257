import { parseDuration } from '../../lib/duration.js';
import type { ApiKeyWithOwner } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { humanTime, printData, printJson } from '../output.js';

const createToken: CommandSpec = {
  name: 'create',
  summary: 'Create an API token and print it',
  options: [
    { flags: '--name <name>', description: 'Name of the token (default: a generated one)' },
    { flags: '--lifetime <duration>', description: 'How long the token lives, e.g. 30d or 720h (default: the deployment default)' },
    { flags: '--scope <scope>', description: 'all or application_connect', default: 'all' },
    { flags: '--user <user>', description: 'Create it for another user (owners only)', default: 'me' },
  ],
  examples: ['cove tokens create --name ci --lifetime 30d'],
  async run(context, _args, options) {
    const client = await context.client();
    const lifetimeText = options['lifetime'];
    let lifetimeNs: number | undefined;
    if (typeof lifetimeText === 'string') {
      const ms = parseDuration(lifetimeText);
      if (ms === undefined || ms <= 0) throw new CliError(`--lifetime "${lifetimeText}" is not a duration such as 30d, 12h or 90m.`);
      lifetimeNs = ms * 1_000_000;
    }
    const scope = options['scope'];
    if (scope !== 'all' && scope !== 'application_connect') throw new CliError('--scope must be all or application_connect.');
    const name = typeof options['name'] === 'string' ? options['name'] : undefined;
    const { key } = await client.createToken(
      { ...(name ? { token_name: name } : {}), ...(lifetimeNs ? { lifetime: lifetimeNs } : {}), scope },
      String(options['user']),
    );
    if (context.json) printJson(context.io, { key });
    else context.io.stdout.write(`${key}\n`);
    return 0;
  },
};

const listTokens: CommandSpec = {
  name: 'list',
  aliases: ['ls'],
  summary: 'List API tokens',
  options: [{ flags: '-a, --all', description: 'Tokens of every user you may see', default: false }],
  async run(context, _args, options) {
    const client = await context.client();
    const tokens = await client.listTokens({ includeAll: options['all'] === true });
    printData<ApiKeyWithOwner>(context.io, context.global.output, tokens, [
      { heading: 'id', value: (t) => t.id },
      { heading: 'name', value: (t) => t.token_name },
      ...(options['all'] === true ? [{ heading: 'owner', value: (t: ApiKeyWithOwner) => t.username }] : []),
      { heading: 'scope', value: (t) => t.scope },
      { heading: 'last used', value: (t) => humanTime(t.last_used) },
      { heading: 'expires at', value: (t) => humanTime(t.expires_at) },
    ]);
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
  summary: 'Create, list and remove API tokens',
  subcommands: [createToken, listTokens, removeToken],
};
