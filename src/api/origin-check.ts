import type { FastifyRequest } from 'fastify';
import { HttpProblem } from '../lib/errors.js';
import { parsePathApp, wildcardMatcher } from './apps/app-request.js';
import type { ApiContext } from './context.js';
import { presentedByCookie } from './session-token.js';

/**
 * The origin boundary of the session cookie. A browser attaches the cookie to requests that any
 * page makes, including pages on another port of the same host (same site, so SameSite=Lax does
 * not stop it) and app pages on the deployment's subdomains. So a request that the cookie
 * authenticates may change something, or open a WebSocket, only when the browser says it comes
 * from the deployment's own origin. Clients that send the token in a header (the CLI, the SDK,
 * agents, provisioners) chose to send it and are not asked.
 */

/** Methods that change nothing; a cookie-authenticated request with one of these needs no origin (WebSockets aside). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Checks a request that is about to be authenticated by what it presents: when that is the session
 * cookie, a write (any method but GET, HEAD, OPTIONS) or an upgrade must come from the deployment's
 * origin, and an API request must not come from a path app's page. Undefined when it may go on.
 */
export function crossOriginRefusal(context: ApiContext, request: FastifyRequest): HttpProblem | undefined {
  // Most requests present the header token: one header read and they are through.
  if (!presentedByCookie(request)) return undefined;
  if (isUpgrade(request) || !SAFE_METHODS.has(request.method)) {
    const refusal = foreignSource(context, request);
    if (refusal) return refusal;
  }
  if (request.url.startsWith('/api/v2/')) return appPageRefusal(context, request);
  return undefined;
}

/** crossOriginRefusal, thrown: for code that authenticates a request itself. */
export function refuseCrossOrigin(context: ApiContext, request: FastifyRequest): void {
  const refusal = crossOriginRefusal(context, request);
  if (refusal) throw refusal;
}

/**
 * For the path app proxy, which the session cookie authenticates too: a page load or a form post
 * to an app is a navigation, the app's own business; a WebSocket to it is a script's, and must come
 * from the deployment's origin like any other cookie-authenticated WebSocket.
 */
export function refuseCrossOriginAppUpgrade(context: ApiContext, request: FastifyRequest): void {
  if (!isUpgrade(request) || !presentedByCookie(request)) return;
  const refusal = foreignSource(context, request);
  if (refusal) throw refusal;
}

function isUpgrade(request: FastifyRequest): boolean {
  return (request.raw as { upgrade?: boolean }).upgrade === true || request.headers.upgrade !== undefined;
}

/**
 * Where the browser says the request comes from, refused unless it is the deployment's origin.
 * `Origin` first (browsers send it with every write and every WebSocket); without it,
 * `Sec-Fetch-Site`; without that, the origin of `Referer`. A request with none of the three comes
 * from no browser, and a client that is not a browser has no visitor to act for.
 */
function foreignSource(context: ApiContext, request: FastifyRequest): HttpProblem | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined) return fromAllowedOrigin(context, request, origin) ? undefined : refusal(context, `Origin "${origin}"`);
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) {
    // `none` is the user's own doing (typed in the address bar, a bookmark).
    return site === 'same-origin' || site === 'none' ? undefined : refusal(context, `a ${site} page (Sec-Fetch-Site)`);
  }
  const referer = request.headers.referer;
  if (referer !== undefined) {
    return fromAllowedOrigin(context, request, originOf(referer) ?? 'null') ? undefined : refusal(context, `a page at ${referer}`);
  }
  return undefined;
}

function refusal(context: ApiContext, source: string): HttpProblem {
  return new HttpProblem(403, 'The request came from another origin, which may not use your session.', {
    detail:
      `Requests signed in with the session cookie that change something, and WebSockets, are accepted from ` +
      `${dashboardOrigin(context)} only; this one came from ${source}. ` +
      'Clients that are not browsers send their token in the Service-Session-Token header instead.',
  });
}

/**
 * Second line of defence for path apps, whose pages share the deployment's origin (and so pass the
 * check above): an API request whose Referer is an app page is refused, whatever its method. A
 * script can suppress Referer (`Referrer-Policy: no-referrer`), so this is no boundary; keeping
 * path apps to their owner is.
 */
function appPageRefusal(context: ApiContext, request: FastifyRequest): HttpProblem | undefined {
  const referer = request.headers.referer;
  if (referer === undefined) return undefined;
  let page: URL;
  try {
    page = new URL(referer);
  } catch {
    return undefined;
  }
  if (!fromAllowedOrigin(context, request, page.origin) || parsePathApp(`${page.pathname}${page.search}`) === undefined) return undefined;
  return new HttpProblem(403, "The request came from a workspace app's page, which may not use your session.", {
    detail: `Pages under ${page.pathname.split('/').slice(0, 5).join('/')}/ are a workspace's app; the API refuses them the dashboard's session.`,
  });
}

/**
 * Whether `origin` is the deployment's own: the access URL's origin, or the origin this request was
 * sent to (the same daemon under another name, `localhost` for `127.0.0.1`, say), unless that is an
 * app host under the wildcard access URL. A cookie is only sent back to the host that set it, so
 * the second can only be a page of this daemon.
 */
function fromAllowedOrigin(context: ApiContext, request: FastifyRequest, origin: string): boolean {
  if (origin === 'null') return false;
  const given = originOf(origin);
  if (given === undefined) return false;
  if (given === dashboardOrigin(context)) return true;
  const host = request.host;
  if (host === '' || appHostMatcher(context)?.(host) !== undefined) return false;
  return given === originOf(`${request.protocol}://${host}`);
}

/** A URL's origin, normalised (`https://Example.com:443/x` → `https://example.com`); undefined when not a URL. */
function originOf(url: string): string | undefined {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** The access URL's origin, computed again only when the access URL changes (it is set once the daemon listens). */
const dashboardOrigins = new WeakMap<ApiContext, { readonly url: string; readonly origin: string }>();

function dashboardOrigin(context: ApiContext): string {
  const url = context.values.accessUrl;
  const known = dashboardOrigins.get(context);
  if (known?.url === url) return known.origin;
  const origin = originOf(url) ?? url;
  dashboardOrigins.set(context, { url, origin });
  return origin;
}

const appHostMatchers = new WeakMap<ApiContext, ((host: string) => string | undefined) | undefined>();

function appHostMatcher(context: ApiContext): ((host: string) => string | undefined) | undefined {
  if (!appHostMatchers.has(context)) appHostMatchers.set(context, wildcardMatcher(context.values.wildcardAccessUrl));
  return appHostMatchers.get(context);
}
