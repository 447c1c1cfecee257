/**
 * The two ways a request names a workspace app (reference §6.1): a path on the deployment,
 * `/@owner/workspace.agent/apps/slug/...`, or a host under the wildcard access URL,
 * `[prefix---]slug--agent--workspace--owner.apps.example.com`. Both name an app by slug or a port
 * by number (`8080`, or `8443s` for an https upstream).
 */

/** What an app URL names. `agent` is undefined when the URL leaves it out. */
export interface AppTarget {
  readonly owner: string;
  readonly workspace: string;
  readonly agent: string | undefined;
  /** The app slug, or a port number with an optional `s` (https). */
  readonly slugOrPort: string;
}

/** A port named instead of an app slug. */
export interface PortTarget {
  readonly port: number;
  readonly https: boolean;
}

/** Ports below this are never proxied (reference: `AgentMinimumListeningPort`). */
export const MINIMUM_APP_PORT = 9;

/** A path-based app request: where to redirect it, or the app and what follows its slug. */
export type PathAppRequest =
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'app'; readonly target: AppTarget; readonly rest: string; readonly query: string };

const PATH_APP = /^\/(?:@|%40)([^/?]*)\/([^/?]+)\/apps\/([^/?]+)(\/[^?]*)?(?:\?(.*))?$/i;

/**
 * Parses `/@owner/workspace[.agent]/apps/slug[/rest][?query]` (`@` may be `%40`). Undefined when
 * the URL is not an app URL. Without the slash after the slug, the answer is the same URL with it.
 */
export function parsePathApp(rawUrl: string): PathAppRequest | undefined {
  const match = PATH_APP.exec(rawUrl);
  if (!match) return undefined;
  const [, ownerText = '', workspaceText = '', slugText = '', rest, query] = match;
  if (rest === undefined) {
    const path = rawUrl.split('?')[0] ?? rawUrl;
    return { kind: 'redirect', location: `${path}/${query !== undefined ? `?${query}` : ''}` };
  }
  const owner = decode(ownerText);
  const workspaceAndAgent = decode(workspaceText);
  const slugOrPort = decode(slugText);
  if (owner === undefined || workspaceAndAgent === undefined || slugOrPort === undefined || owner === '') return undefined;
  const dot = workspaceAndAgent.indexOf('.');
  const workspace = dot < 0 ? workspaceAndAgent : workspaceAndAgent.slice(0, dot);
  const agent = dot < 0 ? undefined : workspaceAndAgent.slice(dot + 1);
  return { kind: 'app', target: { owner, workspace, agent: agent === '' ? undefined : agent, slugOrPort }, rest, query: query ?? '' };
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** `8080` or `8443s` as a port; undefined for a slug or a port out of range. */
export function parsePort(slugOrPort: string): PortTarget | undefined {
  const match = /^(\d{1,5})(s?)$/.exec(slugOrPort);
  if (!match) return undefined;
  const port = Number(match[1]);
  if (port < MINIMUM_APP_PORT || port > 65535) return undefined;
  return { port, https: match[2] === 's' };
}

/** Whether `slugOrPort` looks like a port at all (even one out of range). */
export function looksLikePort(slugOrPort: string): boolean {
  return /^\d+s?$/.test(slugOrPort);
}

const NAME = '[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*';
const NAME_ONLY = new RegExp(`^${NAME}$`);

/**
 * Parses a subdomain label: `[prefix---]slug-or-port[--agent]--workspace--owner`. The agent may be
 * left out for slugs, never for ports. Undefined when the label is not an app label.
 */
export function parseAppLabel(label: string): AppTarget | undefined {
  const prefixEnd = label.indexOf('---');
  const rest = prefixEnd > 0 ? label.slice(prefixEnd + 3) : label;
  const parts = rest.split('--');
  if (!parts.every((part) => NAME_ONLY.test(part))) return undefined;
  if (parts.length === 4) {
    const [slugOrPort = '', agent = '', workspace = '', owner = ''] = parts;
    return { slugOrPort, agent, workspace, owner };
  }
  if (parts.length === 3) {
    const [slugOrPort = '', workspace = '', owner = ''] = parts;
    if (looksLikePort(slugOrPort)) return undefined;
    return { slugOrPort, agent: undefined, workspace, owner };
  }
  return undefined;
}

/** The label a subdomain app is served under (`subdomain_name` in the API). */
export function appLabel(slugOrPort: string, agent: string, workspace: string, owner: string): string {
  return `${slugOrPort}--${agent}--${workspace}--${owner}`;
}

/** The wildcard host pattern of a `--wildcard-access-url` value (`*.apps.example.com`), '' when unset. */
export function wildcardHost(wildcardAccessUrl: string): string {
  const trimmed = wildcardAccessUrl
    .trim()
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/\/.*$/, '');
  return trimmed.includes('*') ? trimmed.toLowerCase() : '';
}

/**
 * A matcher for hosts under the wildcard: it returns the part the `*` stands for (the app label),
 * or undefined. `*` stands for one DNS label or the start of one (`*--apps.example.com`). A port
 * on the host is ignored. Undefined when no wildcard is configured.
 */
export function wildcardMatcher(wildcardAccessUrl: string): ((host: string) => string | undefined) | undefined {
  const pattern = wildcardHost(wildcardAccessUrl).replace(/:\d+$/, '');
  if (pattern === '') return undefined;
  const source = pattern
    .split('*')
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('([^.]+)');
  const regex = new RegExp(`^${source}$`);
  return (host) => {
    const hostname = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    return regex.exec(hostname)?.[1];
  };
}

/**
 * The app host pattern `/applications/host` answers: the wildcard host, with the access URL's port
 * when it names one explicitly; '' when no wildcard is configured.
 */
export function appsHost(wildcardAccessUrl: string, accessUrl: string): string {
  const host = wildcardHost(wildcardAccessUrl);
  if (host === '' || /:\d+$/.test(host)) return host;
  let port = '';
  try {
    port = new URL(accessUrl).port;
  } catch {
    port = '';
  }
  return port === '' ? host : `${host}:${port}`;
}

/** The workspace and owner names that subdomain app labels are made of. */
export interface AppLabelNames {
  readonly workspace: string;
  readonly owner: string;
}

/** Fills `subdomain_name` of the subdomain apps of an agent; the apps are left as they are without names. */
export function withSubdomainNames<T extends { readonly slug: string; readonly subdomain: boolean; readonly subdomain_name?: string }>(
  apps: T[],
  agentName: string,
  names: AppLabelNames | undefined,
): T[] {
  if (!names) return apps;
  return apps.map((app) => (app.subdomain ? { ...app, subdomain_name: appLabel(app.slug, agentName, names.workspace, names.owner) } : app));
}
