import { readDefinition } from '../../domain/agent-definition.js';
import { SHARE_LEVELS, type ShareLevel } from '../../domain/port-sharing.js';
import { HttpProblem, isNotFoundOrHidden } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { AgentRow, WorkspaceRow } from '../../store/rows.js';
import { parsePort, type AppTarget } from './app-request.js';

/** Where the proxy sends an app's requests inside the workspace. */
export interface Upstream {
  readonly port: number;
  readonly https: boolean;
  /** The `Host` the app expects (`localhost:8080`). */
  readonly host: string;
  /** The path of the app's URL; what follows the slug is appended to it. */
  readonly basePath: string;
  /** The query of the app's URL, used when a request to `/` brings none. */
  readonly baseQuery: string;
}

/** An app (or shared port) found from its URL, with who may open it and where it goes. */
export interface ResolvedApp {
  readonly workspace: WorkspaceRow;
  readonly ownerUsername: string;
  readonly agent: AgentRow;
  readonly level: ShareLevel;
  /** Where to proxy to, or why it cannot be (told only to those who may open the app). */
  readonly upstream: Upstream | HttpProblem;
  /** The app, when the URL named one of the agent's apps rather than a port. */
  readonly app?: { readonly slug: string; readonly displayName: string; readonly icon: string };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '[::]']);

/**
 * Finds what an app URL names: the owner, the live workspace, the agent of its latest build, and
 * the app by slug or the port by number. `store` must be the app resolver's
 * (`SYSTEM_SUBJECTS.appResolver`), not the viewer's: who may see the app depends on its sharing
 * level, which is only known once it is found; the caller decides with `appAccess` before
 * anything of it is revealed. Undefined when nothing matches.
 */
export async function resolveApp(store: AuthorizedStore, target: AppTarget): Promise<ResolvedApp | undefined> {
  // Apps are addressed by username; ids, which no username can look like, name nothing here.
  if (target.owner.toLowerCase() === 'me' || isUuid(target.owner)) return undefined;
  const owner = await orUndefined(store.users.get(target.owner));
  if (!owner) return undefined;
  const workspace = await orUndefined(store.workspaces.getByOwnerAndName(owner.id, target.workspace, false));
  if (!workspace) return undefined;
  const agents = await store.workspaceAgents.listOfLatestBuild(workspace);
  const named = target.agent === undefined ? undefined : agents.find((agent) => agent.name.toLowerCase() === target.agent?.toLowerCase());
  if (target.agent !== undefined && !named) return undefined;
  const agent = named ?? (agents.length === 1 ? agents[0] : undefined);
  if (!agent) {
    if (agents.length === 0) return undefined;
    // Several agents and none named: ask for one, but only once the caller may know the workspace.
    const problem = new HttpProblem(400, 'The workspace has several agents; name the one the app runs on.', {
      detail: `Use /@${owner.username}/${workspace.name}.AGENT/apps/${target.slugOrPort}/ with AGENT one of: ${agents.map((a) => a.name).join(', ')}.`,
    });
    return { workspace, ownerUsername: owner.username, agent: agents[0] as AgentRow, level: 'owner', upstream: problem };
  }

  const app = readDefinition(agent.definition).apps.find((candidate) => candidate.slug.toLowerCase() === target.slugOrPort.toLowerCase());
  if (app) {
    const level = SHARE_LEVELS.includes(app.share) ? app.share : 'owner';
    return {
      workspace,
      ownerUsername: owner.username,
      agent,
      level,
      upstream: appUpstream(app.slug, app.url, app.external),
      app: { slug: app.slug, displayName: app.display_name, icon: app.icon },
    };
  }
  const port = parsePort(target.slugOrPort);
  if (!port) return undefined;
  const share = await store.portShares.get(workspace, agent.name, port.port);
  const level = share && SHARE_LEVELS.includes(share.share_level as ShareLevel) ? (share.share_level as ShareLevel) : 'owner';
  return {
    workspace,
    ownerUsername: owner.username,
    agent,
    level,
    upstream: { port: port.port, https: port.https, host: `localhost:${port.port}`, basePath: '/', baseQuery: '' },
  };
}

/** What `lookup` finds, or undefined when there is nothing (or nothing the resolver may read). */
async function orUndefined<T>(lookup: Promise<T>): Promise<T | undefined> {
  try {
    return await lookup;
  } catch (error) {
    if (isNotFoundOrHidden(error)) return undefined;
    throw error;
  }
}

/** Where an app's URL points, or why the proxy cannot reach it. */
function appUpstream(slug: string, url: string, external: boolean): Upstream | HttpProblem {
  if (external) {
    return new HttpProblem(400, `App "${slug}" is external: open its URL directly.`, { detail: url });
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return new HttpProblem(502, `App "${slug}" has no URL the proxy can reach.`, {
      detail: url === '' ? 'The template gives the app no URL (a command app runs in a terminal).' : `"${url}" is not a URL.`,
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return new HttpProblem(502, `App "${slug}" has no URL the proxy can reach.`, {
      detail: `Only http and https apps are proxied, not "${parsed.protocol}".`,
    });
  }
  if (!LOOPBACK_HOSTS.has(parsed.hostname.toLowerCase())) {
    return new HttpProblem(502, `App "${slug}" points outside its workspace.`, {
      detail: `Its URL's host is "${parsed.hostname}"; the proxy reaches only the workspace's own loopback interface (localhost, 127.0.0.1).`,
    });
  }
  const https = parsed.protocol === 'https:';
  return {
    port: parsed.port === '' ? (https ? 443 : 80) : Number(parsed.port),
    https,
    host: parsed.host,
    basePath: parsed.pathname === '' ? '/' : parsed.pathname,
    baseQuery: parsed.search.replace(/^\?/, ''),
  };
}
