import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpProblem } from '../../lib/errors.js';
import { SYSTEM_SUBJECTS } from '../../rbac/system-subjects.js';
import { RelayCloseCode } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { trackAppConnection } from '../live-connections.js';
import { refuseCrossOriginAppUpgrade } from '../origin-check.js';
import { NOT_FOUND_MESSAGE } from '../problems.js';
import { RelayStreamError } from '../relay/agent-relay.js';
import { presentedToken, readCookie, SESSION_COOKIE, SESSION_HEADER } from '../session-token.js';
import { isPageLoad, signInLocation } from '../sign-in-redirect.js';
import { stopBodyTimeout } from '../http-timeouts.js';
import { appAnswerHeaders, COVE_COOKIES } from './app-answer-headers.js';
import { appAccess, appAccessRules, pathAppProblem, signInProblem, viewerOf, type AppViewer } from './app-access.js';
import { appLabel, appsHost, parseAppLabel, parsePathApp, wildcardMatcher, type AppTarget } from './app-request.js';
import { resolveApp, type ResolvedApp, type Upstream } from './app-resolve.js';
import { AppSessions } from './app-sessions.js';
import { APP_CONNECT_PARAM, APP_SESSION_COOKIE, appSessionCookie, decryptAppConnectKey, withoutCookies } from './app-session-cookie.js';
import { endToEndHeaders, forwardOverStream, streamDuplex, type UpgradeSide } from './http-over-stream.js';

/**
 * The workspace app proxy (reference §6): path-based apps under `/@owner/workspace.agent/apps/slug/`
 * and, with a wildcard access URL, subdomain apps on hosts under it. Every byte goes through the
 * agent's relay: each request opens a stream to the app's port inside the workspace.
 *
 * It runs as an `onRequest` hook of the root, so that it sees a request before any body parser
 * (bodies are streamed to the app, whatever their type or size) and every method and upgrade;
 * requests it does not claim continue to the routes.
 */
export function registerAppProxy(app: FastifyInstance, context: ApiContext): void {
  const proxy = new AppProxy(context);
  // Callback style: this runs on every request, and only app requests need to wait for anything.
  app.addHook('onRequest', (request, reply, done) => {
    const handling = proxy.claim(request, reply);
    if (!handling) {
      done();
      return;
    }
    // Once the proxy has answered, fastify skips the rest of the request's lifecycle.
    handling.then(
      () => done(),
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  });
  app.addHook('preClose', (done) => {
    proxy.closeAll();
    done();
  });
}

/** What of the caller's URL goes on to the app. */
interface ForwardOptions {
  /** The path after the app's slug (the whole path for subdomain apps), starting with `/`. */
  readonly rest: string;
  /** The raw query string, without `?`. */
  readonly query: string;
  /** Reached by path, on the deployment's own origin. */
  readonly pathApp: boolean;
  /** Who is asking, for the connection log. */
  readonly viewer: AppViewer;
}

class AppProxy {
  readonly #context: ApiContext;
  readonly matchHost: ((host: string) => string | undefined) | undefined;
  readonly #open = new Set<Duplex>();
  readonly #sessions: AppSessions;

  constructor(context: ApiContext) {
    this.#context = context;
    this.#sessions = new AppSessions(context);
    this.matchHost = wildcardMatcher(context.values.wildcardAccessUrl);
  }

  /** The handling of an app request, or undefined when the request is not for an app. */
  claim(request: FastifyRequest, reply: FastifyReply): Promise<unknown> | undefined {
    const label = this.matchHost?.(request.headers.host ?? '');
    if (label !== undefined) {
      const target = parseAppLabel(label);
      // A host under the wildcard that names no app (the deployment's own, say) is routed as usual.
      if (target) return this.subdomain(request, reply, target);
    }
    const url = request.raw.url ?? '';
    if (url.startsWith('/@') || url.slice(0, 4).toLowerCase() === '/%40') return this.path(request, reply);
    return undefined;
  }

  /** `/@owner/workspace[.agent]/apps/slug-or-port/...`: the Cove session authenticates. */
  async path(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const parsed = parsePathApp(request.raw.url ?? '');
    if (!parsed) return undefined;
    if (this.#context.values.disablePathApps) {
      throw new HttpProblem(403, 'Path-based applications are disabled on this deployment.', {
        detail: 'An administrator turned them off (--disable-path-apps); open the app on its subdomain instead.',
      });
    }
    if (parsed.kind === 'redirect') return reply.redirect(parsed.location, 307);
    if (parsed.target.owner.toLowerCase() === 'me') {
      throw new HttpProblem(404, NOT_FOUND_MESSAGE, { detail: 'App URLs name the workspace owner by username; "@me" is not supported.' });
    }
    refuseCrossOriginAppUpgrade(this.#context, request);
    const viewer = await viewerOf(this.#context, presentedToken(request), request.ip);
    const resolved = await this.#authorized(parsed.target, viewer, true);
    if (resolved === 'sign-in') {
      // A browser is sent to sign in and comes back here; API clients are told to sign in.
      if (isPageLoad(request)) return reply.redirect(signInLocation(this.#context.values.accessUrl, request.raw.url ?? '/'), 303);
      throw signInProblem(viewer);
    }
    trackAppConnection(this.#context, request, reply, viewer, presentedToken(request), { ...resolved, pathApp: true });
    await this.#forward(request, reply, resolved, { rest: parsed.rest, query: parsed.query, pathApp: true, viewer });
    return reply;
  }

  /**
   * A host under the wildcard. The app host has its own session cookie, which it gets from the
   * deployment through the auth hand-off (reference §6.2): without one, the caller is sent to
   * `/api/v2/applications/auth-redirect`, which sends them back with an encrypted key.
   */
  async subdomain(request: FastifyRequest, reply: FastifyReply, target: AppTarget): Promise<FastifyReply> {
    const rawUrl = request.raw.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const path = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
    const query = queryAt < 0 ? '' : rawUrl.slice(queryAt + 1);
    const host = request.headers.host ?? '';
    const accessUrl = new URL(this.#context.values.accessUrl);

    const encrypted = queryParam(query, APP_CONNECT_PARAM);
    if (encrypted !== undefined) {
      const now = this.#context.store.clock.now();
      const token = decryptAppConnectKey(this.#context.identity.signingKey, encrypted, host, now);
      if (!token) {
        throw new HttpProblem(400, 'Invalid or expired application connect API key.', {
          detail: 'Open the app again without the "cove_application_connect_api_key" parameter to sign in anew.',
        });
      }
      const viewer = await viewerOf(this.#context, token, request.ip);
      if (viewer.kind !== 'user') throw signInProblem(viewer);
      const maxAge = (Date.parse(viewer.auth.apiKey.expires_at) - now.getTime()) / 1000;
      void reply.header('set-cookie', appSessionCookie(token, maxAge, accessUrl.protocol === 'https:'));
      const rest = withoutParams(query, [APP_CONNECT_PARAM]);
      // Back to the same path on this host. A path that begins `//` (or `/\`) would read as a
      // link to another host, and the hand-off would then carry the browser off-site.
      const samePath = path.replace(/^[/\\\s]+/, '/');
      return reply.redirect(rest === '' ? samePath : `${samePath}?${rest}`, 307);
    }

    const header = request.headers[SESSION_HEADER];
    const token = typeof header === 'string' && header !== '' ? header : readCookie(request.headers.cookie, APP_SESSION_COOKIE);
    const viewer = await viewerOf(this.#context, token, request.ip);
    const resolved =
      target.owner.toLowerCase() === 'me' ? (viewer.kind === 'user' ? 'hidden' : 'sign-in') : await this.#authorized(target, viewer, false);
    if (resolved === 'hidden') throw notFound();
    if (resolved === 'sign-in') {
      // Only a page load can follow the hand-off; a form post or a WebSocket is told to sign in.
      const method = request.raw.method ?? 'GET';
      if ((method !== 'GET' && method !== 'HEAD') || request.headers.upgrade) throw signInProblem(viewer);
      const appUrl = `${accessUrl.protocol}//${host}${rawUrl}`;
      const base = this.#context.values.accessUrl.replace(/\/+$/, '');
      return reply.redirect(`${base}/api/v2/applications/auth-redirect?redirect_uri=${encodeURIComponent(appUrl)}`, 307);
    }
    trackAppConnection(this.#context, request, reply, viewer, token, { ...resolved, pathApp: false });
    await this.#forward(request, reply, resolved, { rest: path, query, pathApp: false, viewer });
    return reply;
  }

  /**
   * The app a target names, if the viewer may open it; `sign-in` when an anonymous caller must sign
   * in first (whether or not the app exists: that is not revealed to strangers). Throws the 404 for
   * signed-in callers who may not see it, and the 403 for those who may open it on its subdomain
   * only (`pathApp`: the target came as a path on the deployment).
   */
  async #authorized(target: AppTarget, viewer: AppViewer, pathApp: boolean): Promise<ResolvedApp | 'sign-in'> {
    // Not the viewer's store: whether the viewer may even learn that the app exists depends on its
    // sharing level, known only once it is found (a public port may be opened by anyone at all).
    const resolved = await resolveApp(this.#context.store.as(SYSTEM_SUBJECTS.appResolver), target);
    const rules = appAccessRules(this.#context.values, pathApp);
    const access = resolved
      ? appAccess(resolved.level, resolved.workspace, viewer, rules)
      : viewer.kind === 'anonymous'
        ? 'sign-in'
        : 'hidden';
    if (access === 'sign-in') return 'sign-in';
    if (access === 'hidden' || !resolved) throw notFound();
    if (access === 'path-refused') throw pathAppProblem(resolved.workspace, viewer, this.#subdomainUrl(resolved, target));
    return resolved;
  }

  /** The address of an app on its subdomain, when the deployment has a wildcard and the names fit in a label. */
  #subdomainUrl(resolved: ResolvedApp, target: AppTarget): string | undefined {
    const host = appsHost(this.#context.values.wildcardAccessUrl, this.#context.values.accessUrl);
    if (host === '') return undefined;
    const label = appLabel(resolved.app?.slug ?? target.slugOrPort, resolved.agent.name, resolved.workspace.name, resolved.ownerUsername);
    if (!parseAppLabel(label)) return undefined;
    return `${new URL(this.#context.values.accessUrl).protocol}//${host.replace('*', label)}/`;
  }

  /** Opens a stream to the app's port and carries the request over it; from then on the answer is the app's. */
  async #forward(request: FastifyRequest, reply: FastifyReply, resolved: ResolvedApp, options: ForwardOptions): Promise<void> {
    if (resolved.upstream instanceof HttpProblem) return answerProblem(reply, resolved.upstream);
    const upstream = resolved.upstream;
    const { agent, workspace } = resolved;
    const label = `${resolved.ownerUsername}/${workspace.name}.${agent.name}`;
    if (!this.#context.relay.isConnected(agent.id)) {
      return answerProblem(
        reply,
        new HttpProblem(502, 'The workspace agent is not connected.', {
          detail: `Agent "${agent.name}" of workspace "${label}" is not connected to this deployment. Start the workspace, or wait for its agent to connect.`,
        }),
      );
    }
    let stream;
    try {
      stream = await this.#context.relay.openStream(agent.id, { kind: 'tcp', port: upstream.port });
    } catch (error) {
      return answerProblem(reply, relayProblem(error, upstream.port, label));
    }
    const upgrade = upgradeSide(request.raw);
    const logged = this.#sessions.request(request, options.viewer, resolved, upgrade !== undefined);
    const connection = streamDuplex(stream, { toAgent: logged.toApp, toClient: logged.fromApp });
    reply.hijack();
    // The app decides how long its requests may take to arrive (an upload into an editor can be large).
    stopBodyTimeout(request.raw);
    if (request.raw.socket.destroyed) {
      // The caller left while the stream opened.
      connection.destroy();
      logged.done(undefined);
      return;
    }
    // Use of a named app counts for insights; a shared port is use of the workspace only.
    if (resolved.app) this.#context.usage.recordUse(workspace, { kind: 'app', ...resolved.app }, request.log);
    else this.#context.usage.record(workspace, request.log);
    this.#open.add(connection);
    connection.once('close', () => this.#open.delete(connection));
    const method = request.raw.method ?? 'GET';
    try {
      await forwardOverStream(
        connection,
        request.raw,
        reply.raw,
        {
          method,
          path: upstreamPath(upstream, options),
          headers: upstreamHeaders(request, upstream, upgrade !== undefined),
          https: upstream.https,
          servername: upstream.host.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''),
          answerHeaders: (raw) => appAnswerHeaders(raw, options.pathApp),
        },
        (error) => {
          writeProblem(
            reply.raw,
            502,
            'The workspace app did not answer.',
            `The connection to port ${upstream.port} in workspace "${label}" failed: ${error.message}`,
          );
          if (upgrade) reply.raw.once('finish', () => upgrade.socket.destroy());
        },
        upgrade,
      );
    } finally {
      connection.destroy();
      // An upgrade the app accepted was answered on the socket, not through the reply.
      logged.done(reply.raw.headersSent ? reply.raw.statusCode : upgrade ? 101 : undefined);
    }
  }

  /** Ends every proxied connection; the daemon is shutting down. */
  closeAll(): void {
    for (const connection of this.#open) connection.destroy();
    this.#open.clear();
    this.#sessions.closeAll();
  }
}

/**
 * Answers a problem of the app or its workspace (not of the request) in the error shape, without
 * going through the error handler: an app that is down is not a daemon failure to log.
 */
function answerProblem(reply: FastifyReply, problem: HttpProblem): void {
  void reply
    .code(problem.status)
    .type('application/json; charset=utf-8')
    .send({ message: problem.message, ...(problem.detail ? { detail: problem.detail } : {}) });
}

function notFound(): HttpProblem {
  return new HttpProblem(404, NOT_FOUND_MESSAGE, { detail: 'There is no workspace app at this address, or you may not open it.' });
}

/** Why a stream to the app's port could not be opened, as the caller should hear it. */
function relayProblem(error: unknown, port: number, label: string): HttpProblem {
  const code = error instanceof RelayStreamError ? error.code : undefined;
  const reason = error instanceof Error ? error.message : String(error);
  switch (code) {
    case RelayCloseCode.targetUnreachable:
      return new HttpProblem(502, `Nothing listens on port ${port} in the workspace.`, {
        detail: `The agent of "${label}" could not connect to 127.0.0.1:${port}: ${reason}. Is the app running?`,
      });
    case RelayCloseCode.agentTimeout:
      return new HttpProblem(504, 'The workspace agent did not open a connection to the app in time.', { detail: reason });
    default:
      return new HttpProblem(502, 'The workspace agent is not connected.', { detail: `Agent of "${label}": ${reason}.` });
  }
}

/** The app's path: its URL's path, then what followed the slug; its URL's query when a bare `/` brings none. */
function upstreamPath(upstream: Upstream, options: ForwardOptions): string {
  const base = upstream.basePath;
  const path = base.endsWith('/') ? `${base}${options.rest.slice(1)}` : `${base}${options.rest}`;
  let query = withoutParams(options.query, [SESSION_COOKIE]);
  if (query === '' && options.query === '' && options.rest === '/') query = upstream.baseQuery;
  return query === '' ? path : `${path}?${query}`;
}

/**
 * What the app is sent: the caller's end-to-end headers without Cove's session (header and
 * cookies), the app's own `Host`, and where the request came from.
 */
function upstreamHeaders(request: FastifyRequest, upstream: Upstream, upgrade: boolean): OutgoingHttpHeaders {
  const headers = endToEndHeaders(request.headers);
  delete headers[SESSION_HEADER];
  const cookie = withoutCookies(request.headers.cookie, COVE_COOKIES);
  if (cookie === undefined) delete headers['cookie'];
  else headers['cookie'] = cookie;
  headers['host'] = upstream.host;
  // The client as Cove established it (behind a trusted proxy, the one its headers name); a chain
  // the caller sent is not passed on, so the app cannot be told a made-up address.
  headers['x-forwarded-for'] = request.ip;
  headers['x-forwarded-host'] = request.headers.host ?? '';
  headers['x-forwarded-proto'] = request.protocol;
  if (
    String(request.headers['transfer-encoding'] ?? '')
      .toLowerCase()
      .includes('chunked')
  )
    headers['transfer-encoding'] = 'chunked';
  if (upgrade) {
    headers['connection'] = 'Upgrade';
    headers['upgrade'] = request.headers.upgrade ?? 'websocket';
  }
  return headers;
}

/**
 * The caller's socket when the request is an upgrade. `@fastify/websocket` routes upgrade requests
 * through fastify with the socket and the bytes after the head kept on the raw request.
 */
function upgradeSide(raw: IncomingMessage): UpgradeSide | undefined {
  if (!raw.headers.upgrade) return undefined;
  const symbols = Object.getOwnPropertySymbols(raw);
  const record = raw as unknown as Record<symbol, unknown>;
  const socketKey = symbols.find((symbol) => symbol.description === 'ws-socket');
  const headKey = symbols.find((symbol) => symbol.description === 'ws-head');
  const socket = socketKey ? record[socketKey] : undefined;
  if (!socket) return undefined;
  const head = headKey ? record[headKey] : undefined;
  return { socket: socket as Duplex, head: Buffer.isBuffer(head) ? head : Buffer.alloc(0) };
}

function writeProblem(response: ServerResponse, status: number, message: string, detail: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify({ message, detail }));
}

/** One parameter of a raw query string, decoded; undefined when absent. */
function queryParam(query: string, name: string): string | undefined {
  for (const pair of query.split('&')) {
    const at = pair.indexOf('=');
    const key = at < 0 ? pair : pair.slice(0, at);
    if (safeDecode(key) !== name) continue;
    return safeDecode(at < 0 ? '' : pair.slice(at + 1));
  }
  return undefined;
}

/** A raw query string without the named parameters, the rest untouched. */
function withoutParams(query: string, names: readonly string[]): string {
  if (query === '') return '';
  return query
    .split('&')
    .filter((pair) => {
      const at = pair.indexOf('=');
      return !names.includes(safeDecode(at < 0 ? pair : pair.slice(0, at)));
    })
    .join('&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
