import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { PortShare, Workspace } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { ArgumentSpec, CommandSpec, OptionSpec } from '../command.js';
import { printJson, type Column } from '../output.js';
import { parseWorkspaceRef, resolveWorkspace } from '../workspace-ref.js';
import { stringOption } from './templates-common.js';

/** Levels a port can be shared at; `owner` is absent because a port private to its owner is simply unshared. */
const LEVELS = ['authenticated', 'organization', 'public'] as const;
type Level = (typeof LEVELS)[number];

const PROTOCOLS = ['http', 'https'] as const;

/** Who may reach a port shared at each level, as the confirmation says it. */
const AUDIENCE: Readonly<Record<string, string>> = {
  authenticated: 'authenticated users',
  organization: 'members of its organization',
  public: 'everyone, without signing in',
};

const SHARE_COLUMNS: readonly Column<PortShare>[] = [
  { heading: 'agent', value: (s) => s.agent_name },
  { heading: 'port', value: (s) => String(s.port) },
  { heading: 'protocol', value: (s) => s.protocol },
  { heading: 'level', value: (s) => s.share_level },
];

const workspaceArgument: ArgumentSpec = { name: 'workspace', description: 'NAME or OWNER/NAME', required: true };
const portArgument: ArgumentSpec = { name: 'port', description: 'Port number the agent listens on (9-65535)', required: true };
const agentOption: OptionSpec = { flags: '--agent <name>', description: "Agent the port belongs to (default: the workspace's only agent)" };

/** The workspace a command names, with the label its messages use (what the user typed). */
async function target(client: CoveClient, text: string): Promise<{ readonly workspace: Workspace; readonly label: string }> {
  const ref = parseWorkspaceRef(text);
  return { workspace: await resolveWorkspace(client, ref), label: ref.text };
}

function parsePort(text: string): number {
  const port = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isInteger(port) || port < 9 || port > 65535)
    throw new CliError(`"${text}" is not a port.`, { hint: 'Give a port number from 9 to 65535.' });
  return port;
}

/** Reads a flag that takes one of a few words, naming them when it is something else. */
function choice<T extends string>(
  options: Readonly<Record<string, unknown>>,
  key: string,
  flag: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const text = stringOption(options, key);
  if (text === undefined) return fallback;
  const found = allowed.find((value) => value === text.toLowerCase());
  if (found === undefined)
    throw new CliError(`${flag} "${text}" is not one of ${allowed.join(', ')}.`, { hint: `Use one of: ${allowed.join(', ')}.` });
  return found;
}

function shareLevel(options: Readonly<Record<string, unknown>>): Level {
  // The API's own word for "not shared" reads like a level; say how to get there instead.
  if (stringOption(options, 'level')?.toLowerCase() === 'owner') {
    throw new CliError('--level owner is not a share level: a port is private to its owner when it is not shared.', {
      hint: 'Run "cove port unshare WORKSPACE PORT".',
    });
  }
  return choice(options, 'level', '--level', LEVELS, 'authenticated');
}

function agentNames(workspace: Workspace): string[] {
  return workspace.latest_build.resources.flatMap((resource) => resource.agents.map((agent) => agent.name));
}

/**
 * The agent a port belongs to: the one named, or the workspace's only agent. With several, the
 * user has to choose, since a port number means nothing without its agent.
 */
function pickAgent(workspace: Workspace, label: string, given: string | undefined): string {
  const names = agentNames(workspace);
  if (names.length === 0) {
    const hint =
      workspace.latest_build.status === 'running'
        ? 'Its template defines no agent, so it has no ports to share.'
        : `Start it first with "cove start ${label}".`;
    throw new CliError(`Workspace "${label}" has no agents (it is ${workspace.latest_build.status}).`, { hint });
  }
  if (given !== undefined) {
    if (!names.includes(given))
      throw new CliError(`Workspace "${label}" has no agent "${given}".`, { hint: `Its agents: ${names.join(', ')}.` });
    return given;
  }
  const [only] = names;
  if (names.length > 1 || only === undefined)
    throw new CliError(`Workspace "${label}" has several agents: ${names.join(', ')}.`, { hint: 'Name one with --agent NAME.' });
  return only;
}

/**
 * A share refused for its level becomes a CliError that keeps the API's message (it names the
 * template's maximum) and says who can raise that maximum, and how.
 */
async function explainRefusal(client: CoveClient, error: unknown, workspace: Workspace, level: Level): Promise<unknown> {
  if (!(error instanceof ApiError) || error.status !== 400) return error;
  if (!(error.body.validations ?? []).some((validation) => validation.field === 'share_level')) return error;
  // `templates edit` looks in the default organization unless told otherwise.
  const inDefault = await client.organization(workspace.organization_id).then(
    (org) => org.is_default,
    () => false,
  );
  const org = inDefault ? '' : ` --org ${workspace.organization_name}`;
  return new CliError(error.message, {
    hint: `The template caps port sharing with max_port_share_level; a template admin can raise it with "cove templates edit ${workspace.template_name}${org} --max-port-share-level ${level}".`,
  });
}

/** `cove port share`: shares (or re-shares at another level) a port of a workspace's agent. */
const shareCommand: CommandSpec = {
  name: 'share',
  summary: "Share a port of a workspace's agent",
  description:
    'Share a port an agent listens on beyond its owner: with authenticated users (the default), ' +
    "with members of the workspace's organization, or publicly. The template's max_port_share_level " +
    'caps the level; sharing a port again changes its level or protocol.',
  arguments: [workspaceArgument, portArgument],
  options: [
    { flags: '--level <level>', description: 'Who may reach it: authenticated, organization or public', default: 'authenticated' },
    { flags: '--protocol <protocol>', description: 'How the port is reached: http or https', default: 'http' },
    agentOption,
  ],
  examples: ['cove port share dev 8080', 'cove port share alice/dev 3000 --level organization --protocol https --agent main'],
  async run(context, [name = '', portText = ''], options) {
    const port = parsePort(portText);
    const level = shareLevel(options);
    const protocol = choice(options, 'protocol', '--protocol', PROTOCOLS, 'http');
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    const agent = pickAgent(workspace, label, stringOption(options, 'agent'));
    const share = await client
      .sharePort(workspace.id, { agent_name: agent, port, share_level: level, protocol })
      .catch(async (error: unknown) => {
        throw await explainRefusal(client, error, workspace, level);
      });
    if (context.json) printJson(context.io, share);
    else
      context.say(
        `Port ${share.port} of ${label} is shared with ${AUDIENCE[share.share_level] ?? share.share_level}${share.protocol === 'https' ? ' over https' : ''}.`,
      );
    return 0;
  },
};

/** `cove port list`: the shared ports of a workspace. */
const listCommand: CommandSpec = {
  name: 'list',
  aliases: ['ls'],
  summary: 'List the shared ports of a workspace',
  arguments: [workspaceArgument],
  columns: SHARE_COLUMNS,
  examples: ['cove port list dev', 'cove port ls alice/dev -o json'],
  async run(context, [name = ''], _options) {
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    const answer = await client.portShares(workspace.id);
    if (context.json) {
      printJson(context.io, answer);
      return 0;
    }
    if (answer.shares.length === 0) {
      context.say(`No port of ${label} is shared; share one with "cove port share ${label} PORT".`);
      return 0;
    }
    const sorted = [...answer.shares].sort((a, b) => a.agent_name.localeCompare(b.agent_name) || a.port - b.port);
    context.printTable(sorted, SHARE_COLUMNS);
    return 0;
  },
};

/**
 * The share a port number names. Looked up among the shares rather than the agents, so a port of
 * a stopped workspace (whose agents are gone) can still be unshared.
 */
function findShare(shares: readonly PortShare[], label: string, port: number, agent: string | undefined): PortShare {
  const matching = shares.filter((share) => share.port === port && (agent === undefined || share.agent_name === agent));
  const [only] = matching;
  if (only === undefined) {
    const of = agent === undefined ? '' : ` of agent "${agent}"`;
    throw new CliError(`Port ${port}${of} of ${label} is not shared.`, { hint: `See "cove port list ${label}".` });
  }
  if (matching.length > 1)
    throw new CliError(`Port ${port} of ${label} is shared by several agents: ${matching.map((s) => s.agent_name).join(', ')}.`, {
      hint: 'Name one with --agent NAME.',
    });
  return only;
}

/** `cove port unshare`: makes a shared port private to its owner again. */
const unshareCommand: CommandSpec = {
  name: 'unshare',
  summary: 'Stop sharing a port of a workspace',
  arguments: [workspaceArgument, portArgument],
  options: [agentOption],
  examples: ['cove port unshare dev 8080', 'cove port unshare dev 8080 --agent main'],
  async run(context, [name = '', portText = ''], options) {
    const port = parsePort(portText);
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    const { shares } = await client.portShares(workspace.id);
    const share = findShare(shares, label, port, stringOption(options, 'agent'));
    await client.unsharePort(workspace.id, { agent_name: share.agent_name, port: share.port });
    if (context.json) printJson(context.io, share);
    else context.say(`Port ${port} of ${label} is no longer shared.`);
    return 0;
  },
};

/** `cove port`: share the ports a workspace's agents listen on. */
export const portCommand: CommandSpec = {
  name: 'port',
  aliases: ['ports'],
  summary: "Share, list and unshare a workspace's ports",
  description:
    "A workspace's ports are private to its owner until shared. Sharing is capped by the template's " +
    'max_port_share_level (public by default: no cap), which template admins change with ' +
    '"cove templates edit T --max-port-share-level LEVEL".',
  subcommands: [shareCommand, listCommand, unshareCommand],
};
