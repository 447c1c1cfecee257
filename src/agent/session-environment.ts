import { userInfo } from 'node:os';
import type { AgentManifest } from '../sdk/wire/agent-protocol.js';

/** What a session environment is built from. */
export interface SessionEnvironmentInput {
  /** The agent's own environment (usually `process.env`). */
  readonly processEnv: Readonly<Record<string, string | undefined>>;
  readonly manifest: Pick<AgentManifest, 'environment_variables' | 'workspace_name' | 'owner_username' | 'agent_name'>;
  /** The deployment URL the agent talks to. */
  readonly agentUrl: string;
  /** The agent's token, for `cove` commands run in a session (`cove external-auth`, git credential helpers). */
  readonly agentToken: string;
  /**
   * The program git runs for credentials (GIT_ASKPASS): an executable that runs this cove, which
   * answers git's prompt with the workspace owner's token of the remote's provider. Undefined when
   * the agent does not know how it was started (an agent embedded in another program).
   */
  readonly gitAskpass?: string | undefined;
}

/**
 * The environment a script, a terminal or an SSH session runs with: the agent's environment, then
 * the template's variables, then the `COVE_*` facts about the workspace. The agent's token is one
 * of them, as the reference's agent exposes it: a session runs as the workspace's owner, whom the
 * token already acts for, and `cove` commands inside the workspace authenticate with it.
 * `HOME`, `USER` and `SHELL` fall back to the OS account when the agent was started without them
 * (as under a bare init system), since shells and tools misbehave without them.
 * `GIT_ASKPASS` points git at cove, as the reference's agent does, unless the template sets its own.
 */
export function sessionEnvironment(input: SessionEnvironmentInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(input.processEnv)) {
    if (value !== undefined) env[key] = value;
  }
  // Ours over the agent's own (an editor's askpass the agent inherited answers nothing here); the template's over ours.
  if (input.gitAskpass !== undefined) env['GIT_ASKPASS'] = input.gitAskpass;
  Object.assign(env, accountDefaults(env), input.manifest.environment_variables);
  env['COVE'] = 'true';
  env['COVE_WORKSPACE_NAME'] = input.manifest.workspace_name;
  env['COVE_WORKSPACE_OWNER_NAME'] = input.manifest.owner_username;
  env['COVE_WORKSPACE_AGENT_NAME'] = input.manifest.agent_name;
  env['COVE_AGENT_URL'] = input.agentUrl;
  // Set last: the agent's current token, whatever the template's variables or the agent's own start said.
  env['COVE_AGENT_TOKEN'] = input.agentToken;
  return env;
}

/** `HOME`, `USER` and `SHELL` where the environment lacks them. */
function accountDefaults(env: Readonly<Record<string, string>>): Record<string, string> {
  const account = safeUserInfo();
  const defaults: Record<string, string> = {};
  if (!env['HOME'] && account?.homedir) defaults['HOME'] = account.homedir;
  if (!env['USER'] && account?.username) defaults['USER'] = account.username;
  if (!env['SHELL']) defaults['SHELL'] = account?.shell || '/bin/sh';
  return defaults;
}

function safeUserInfo(): { readonly homedir: string; readonly username: string; readonly shell: string | null } | undefined {
  try {
    return userInfo();
  } catch {
    // No passwd entry for our uid (common in containers): keep what the environment has.
    return undefined;
  }
}

/**
 * Expands a leading `~` and `$NAME` / `${NAME}` references from `env`, as the manifest's directory
 * and script log paths may use them. Unknown variables expand to nothing, as in a shell.
 */
export function expandPath(path: string, env: Readonly<Record<string, string | undefined>>): string {
  const home = env['HOME'] ?? '';
  const withHome = path === '~' ? home : path.startsWith('~/') ? `${home}${path.slice(1)}` : path;
  return withHome.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_match, braced: string | undefined, bare: string | undefined) => env[braced ?? bare ?? ''] ?? '',
  );
}
