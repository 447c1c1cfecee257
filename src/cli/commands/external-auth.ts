import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { AgentExternalAuthResponse } from '../../sdk/wire/index.js';
import { agentCredentials } from '../agent-credentials.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printJson } from '../output.js';

/** A client that speaks as the workspace agent. */
function agentClient(context: CommandContext): CoveClient {
  const { url, token } = agentCredentials(
    context,
    'This command speaks as the workspace agent, and ',
    'Run it inside a workspace where the agent token is set, or pass --url and --token with an agent token.',
  );
  return context.newClient(url, token);
}

/** Reads a dotted path (`authed_user.id`) in the token's extra fields. */
function extraField(extra: AgentExternalAuthResponse['token_extra'], path: string): unknown {
  let value: unknown = extra;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The deployment's answer, with its errors told in terms of the provider and the agent token. */
async function askForToken(context: CommandContext, provider: string): Promise<AgentExternalAuthResponse> {
  try {
    return await agentClient(context).agentExternalAuth({ id: provider });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 404) {
      throw new CliError(error.message, {
        ...(error.detail ? { detail: error.detail } : {}),
        hint: `"${provider}" must be the id of an external auth provider that an administrator configured on the deployment.`,
      });
    }
    if (error.status === 401) {
      throw new CliError(`The deployment refused the agent token: ${error.message}`, {
        hint: 'COVE_AGENT_TOKEN (or --token) must be the token of an agent of a workspace that still exists.',
      });
    }
    throw error;
  }
}

const accessTokenCommand: CommandSpec = {
  name: 'access-token',
  summary: 'Print your access token for an external auth provider (inside a workspace)',
  description:
    "Run inside a workspace: asks the deployment, with the workspace agent's token " +
    '($COVE_AGENT_URL and $COVE_AGENT_TOKEN, or --url and --token), for the access token of the ' +
    "workspace owner's account at PROVIDER (the provider's id), and prints it alone on standard " +
    'output with exit code 0. When you have not linked that account yet, or its token expired and ' +
    'cannot be refreshed, it prints the URL where you link it instead, and exits with code 1. ' +
    'With -o json it prints the whole answer (access_token, username, password, type, token_extra).',
  arguments: [{ name: 'provider', description: 'the id of the external auth provider, e.g. github', required: true }],
  options: [
    {
      flags: '--extra <field>',
      description: "Print a field of the token's extra properties instead of the token (a dotted path: authed_user.id)",
    },
  ],
  examples: [
    'cove external-auth access-token github',
    'GITHUB_TOKEN=$(cove external-auth access-token github) || echo "Link your GitHub account at $GITHUB_TOKEN"',
    'cove external-auth access-token slack --extra authed_user.id',
    'cove external-auth access-token github -o json',
  ],
  async run(context, [provider = ''], options) {
    const answer = await askForToken(context, provider);
    if (answer.url !== undefined && answer.url !== '') {
      if (context.json) printJson(context.io, answer);
      else {
        context.io.stdout.write(`${answer.url}\n`);
        context.io.stderr.write(`Your ${provider} account is not linked, or its token expired: open the URL above, then run this again.\n`);
      }
      return 1;
    }
    if (context.json) {
      printJson(context.io, answer);
      return 0;
    }
    const extra = typeof options['extra'] === 'string' ? options['extra'] : undefined;
    if (extra !== undefined) {
      const value = extraField(answer.token_extra, extra);
      if (value === undefined) {
        const known = Object.keys(answer.token_extra ?? {});
        throw new CliError(`The ${provider} token has no extra property "${extra}".`, {
          hint: known.length > 0 ? `Its extra properties are: ${known.join(', ')}.` : 'This token has no extra properties.',
        });
      }
      context.io.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
      return 0;
    }
    context.io.stdout.write(`${answer.access_token ?? ''}\n`);
    return 0;
  },
};

/** `cove external-auth`: tokens of the external services the workspace owner linked, inside a workspace. */
export const externalAuthCommand: CommandSpec = {
  name: 'external-auth',
  summary: 'Print tokens of external auth providers such as GitHub (inside a workspace)',
  description:
    'Run inside a workspace, by scripts and git credential helpers: prints the access token of the ' +
    "workspace owner's account at an external auth provider configured on the deployment.",
  subcommands: [accessTokenCommand],
  examples: ['cove external-auth access-token github'],
};
