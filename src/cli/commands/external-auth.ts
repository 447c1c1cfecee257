import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { AgentExternalAuthResponse } from '../../sdk/wire/index.js';
import { agentCredentials } from '../agent-credentials.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { externalAuthLinkCommands } from './external-auth-links.js';

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
async function askForToken(context: CommandContext, provider: string, match: string | undefined): Promise<AgentExternalAuthResponse> {
  try {
    return await agentClient(context).agentExternalAuth(match === undefined ? { id: provider } : { match });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 404) {
      throw new CliError(error.message, {
        ...(error.detail ? { detail: error.detail } : {}),
        hint:
          match === undefined
            ? `"${provider}" must be the id of an external auth provider that an administrator configured on the deployment.`
            : `No provider's regex matches "${match}": give the provider's id instead, or ask an administrator to widen its regex.`,
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
    'With -o json it prints the whole answer (access_token, username, password, type, token_extra). ' +
    'With --match URL instead of PROVIDER, the provider is the one whose regex matches a git remote URL ' +
    '(https://github.com/org/repo.git, or the SSH form git@github.com:org/repo.git).',
  arguments: [{ name: 'provider', description: 'the id of the external auth provider, e.g. github (or use --match)' }],
  options: [
    { flags: '--match <url>', description: 'Find the provider by a git remote URL that its regex matches, instead of by id' },
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
    'cove external-auth access-token --match git@github.com:org/repo.git',
  ],
  async run(context, [given], options) {
    const match = typeof options['match'] === 'string' ? options['match'] : undefined;
    if ((given === undefined) === (match === undefined)) {
      throw new CliError(given === undefined ? 'Name the provider, or give --match URL.' : 'Give the provider or --match, not both.', {
        hint: 'For example: cove external-auth access-token github, or cove external-auth access-token --match https://github.com/org/repo.git',
      });
    }
    const answer = await askForToken(context, given ?? '', match);
    const provider = given ?? match ?? '';
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

/** `cove external-auth`: your links to external services, and their tokens inside a workspace. */
export const externalAuthCommand: CommandSpec = {
  name: 'external-auth',
  summary: 'Link your accounts at external auth providers such as GitHub, and print their tokens',
  description:
    'Manage your links to the external auth providers (GitHub, GitLab...) configured on the deployment: ' +
    'list, link and unlink them. Inside a workspace, access-token prints the access token of the ' +
    "workspace owner's account at a provider, for scripts and git credential helpers.",
  subcommands: [...externalAuthLinkCommands, accessTokenCommand],
  examples: ['cove external-auth list', 'cove external-auth link github', 'cove external-auth access-token github'],
};
