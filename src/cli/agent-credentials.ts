import { CliError } from './cli-error.js';
import type { CommandContext } from './command.js';

/** The deployment and token an agent speaks with. */
export interface AgentCredentials {
  readonly url: string;
  readonly token: string;
}

/**
 * The agent's deployment URL and token: `--url`/`--token` (global options that, for commands
 * speaking as the agent, name the agent's) or the `COVE_AGENT_URL`/`COVE_AGENT_TOKEN` the
 * template gives the agent and its sessions. A missing one is an error whose message starts with
 * `lead` and names what is not set.
 */
export function agentCredentials(context: CommandContext, lead: string, hint: string): AgentCredentials {
  const url = context.global.url ?? context.io.env['COVE_AGENT_URL'];
  const token = context.global.token ?? context.io.env['COVE_AGENT_TOKEN'];
  if (url && token) return { url, token };
  const missing = [!url ? 'COVE_AGENT_URL' : undefined, !token ? 'COVE_AGENT_TOKEN' : undefined].filter(Boolean).join(' and ');
  throw new CliError(`${lead}${missing} ${missing.includes(' and ') ? 'are' : 'is'} not set.`, { hint });
}
