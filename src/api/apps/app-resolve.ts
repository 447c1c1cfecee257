import { readDefinition } from '../../domain/agent-definition.js';
import { SHARE_LEVELS, type ShareLevel } from '../../domain/port-sharing.js';
import { HttpProblem } from '../../lib/errors.js';
import { listResourcesOfJobs } from '../../store/queries/provisioner-jobs.js';
import { getUserByUsername } from '../../store/queries/users.js';
import {
  getWorkspaceByOwnerAndName,
  latestBuilds,
  listAgentsOfResources,
  type WorkspaceAgentRow,
  type WorkspaceRow,
} from '../../store/queries/workspaces.js';
import type { Store } from '../../store/store.js';
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
  readonly agent: WorkspaceAgentRow;
  readonly level: ShareLevel;
  /** Where to proxy to, or why it cannot be (told only to those who may open the app). */
  readonly upstream: Upstream | HttpProblem;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '[::]']);

/**
 * Finds what an app URL names: the owner, the live workspace, the agent of its latest build, and
 * the app by slug or the port by number. Reads with the store's own privileges on purpose: who may
 * see the app depends on its sharing level, which is only known once it is found; the caller
 * decides with `appAccess` before anything of it is revealed. Undefined when nothing matches.
 */
export async function resolveApp(store: Store, target: AppTarget): Promise<ResolvedApp | undefined> {
  const db = store.db;
  if (target.owner.toLowerCase() === 'me') return undefined;
  const owner = await getUserByUsername(db, target.owner);
  if (!owner) return undefined;
  const workspace = await getWorkspaceByOwnerAndName(db, owner.id, target.workspace, false);
  if (!workspace) return undefined;
  const build = (await latestBuilds(db, [workspace.id])).get(workspace.id);
  if (!build) return undefined;
  const resources = await listResourcesOfJobs(db, [build.job_id]);
  const agents = await listAgentsOfResources(
    db,
    resources.map((resource) => resource.id),
  );
  const named = target.agent === undefined ? undefined : agents.find((agent) => agent.name.toLowerCase() === target.agent?.toLowerCase());
  if (target.agent !== undefined && !named) return undefined;
  const agent = named ?? (agents.length === 1 ? agents[0] : undefined);
  if (!agent) {
    if (agents.length === 0) return undefined;
    // Several agents and none named: ask for one, but only once the caller may know the workspace.
    const problem = new HttpProblem(400, 'The workspace has several agents; name the one the app runs on.', {
      detail: `Use /@${owner.username}/${workspace.name}.AGENT/apps/${target.slugOrPort}/ with AGENT one of: ${agents.map((a) => a.name).join(', ')}.`,
    });
    return { workspace, ownerUsername: owner.username, agent: agents[0] as WorkspaceAgentRow, level: 'owner', upstream: problem };
  }

  const app = readDefinition(agent.definition).apps.find((candidate) => candidate.slug.toLowerCase() === target.slugOrPort.toLowerCase());
  if (app) {
    const level = SHARE_LEVELS.includes(app.share) ? app.share : 'owner';
    return { workspace, ownerUsername: owner.username, agent, level, upstream: appUpstream(app.slug, app.url, app.external) };
  }
  const port = parsePort(target.slugOrPort);
  if (!port) return undefined;
  const share = await db
    .selectFrom('workspace_port_shares')
    .select('share_level')
    .where('workspace_id', '=', workspace.id)
    .where('agent_name', '=', agent.name)
    .where('port', '=', port.port)
    .executeTakeFirst();
  const level = share && SHARE_LEVELS.includes(share.share_level as ShareLevel) ? (share.share_level as ShareLevel) : 'owner';
  return {
    workspace,
    ownerUsername: owner.username,
    agent,
    level,
    upstream: { port: port.port, https: port.https, host: `localhost:${port.port}`, basePath: '/', baseQuery: '' },
  };
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
