import fastifyCompress from '@fastify/compress';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { HttpProblem } from '../lib/errors.js';
import { VERSION } from '../lib/version.js';
import type { ApiObserver } from './api-observer.js';
import type { ApiContext } from './context.js';
import type { PathResources } from './path-resources.js';
import { drainRequest } from './drain-request.js';
import { toProblem } from './problems.js';
import { fastifyLogging } from './request-logger.js';
import { clientAddressSettler } from './client-address.js';
import { registerAppProxy } from './apps/app-proxy.js';
import { refuseWebSocketOutsideScope, registerWebSocketScope } from './websocket-scope.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { applicationRoutes } from './routes/applications.js';
import { binaryRoutes } from './routes/binaries.js';
import { fileRoutes } from './routes/files.js';
import { templateVersionRoutes } from './routes/template-versions.js';
import { provisionerRoutes } from './routes/provisioners.js';
import { templateRoutes } from './routes/templates.js';
import { templateAclRoutes } from './routes/template-acl.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { agentSelfRoutes, workspaceAgentRoutes } from './routes/workspace-agents.js';
import { workspaceAgentRelayRoutes } from './routes/workspace-agent-relay.js';
import { debugRelayRoutes } from './routes/debug-relay.js';
import { debugHealthRoutes, healthProbeRoutes } from './routes/debug-health.js';
import { externalAuthRoutes } from './routes/external-auth.js';
import { externalAuthCallbackRoutes } from './routes/external-auth-callback.js';
import { gitSshKeyRoutes } from './routes/git-ssh-keys.js';
import { instanceIdentityRoutes } from './routes/instance-identity.js';
import { workspaceActivityRoutes } from './routes/workspace-activity.js';
import { workspaceScheduleRoutes } from './routes/workspace-schedule.js';
import { authenticatedGeneralRoutes, publicGeneralRoutes } from './routes/general.js';
import { insightsRoutes } from './routes/insights.js';
import { licenseRoutes } from './routes/licenses.js';
import { connectionLogRoutes } from './routes/connection-logs.js';
import { appearanceRoutes } from './routes/appearance.js';
import { regionRoutes } from './routes/regions.js';
import { userSettingsRoutes } from './routes/user-settings.js';
import { idpSyncRoutes } from './routes/idp-sync.js';
import { workspaceSharingRoutes } from './routes/workspace-sharing.js';
import { reconnectingPtyTokenRoutes } from './routes/reconnecting-pty-token.js';
import { workspaceQuotaRoutes } from './routes/workspace-quota.js';
import { organizationRoutes } from './routes/organizations.js';
import { groupRoutes } from './routes/groups.js';
import { roleRoutes } from './routes/roles.js';
import { authcheckRoutes } from './routes/authcheck.js';
import { auditRoutes } from './routes/audit.js';
import { registerAuditHook } from './plugins/audit.js';
import { userAdminRoutes } from './routes/user-admin.js';
import { authenticatedUserRoutes, publicUserRoutes } from './routes/users.js';
import { signInProviderRoutes } from './routes/sign-in-providers.js';
import { cliAuthRoutes } from './routes/cli-auth.js';
import { notificationRoutes } from './routes/notifications.js';
import { inboxNotificationRoutes } from './routes/inbox-notifications.js';
import { DashboardPage, isPageLoad, webDashboardRoutes } from './dashboard/web-dashboard.js';
import { validatorCompiler } from './validation.js';
import { registerRequestSpans } from './request-spans.js';
import { registerJsonBodyParser } from './json-body-parser.js';
import { answerClientError, apiServerTimeouts, startBodyTimeout } from './http-timeouts.js';
import { ConnectionDrain } from './connection-drain.js';

/** A route the app serves, as fastify registered it (`/api/v2/users/:user`). */
export interface RouteEntry {
  readonly method: string;
  readonly url: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes text with NUL bytes and cleans it itself (log output). */
    readonly nulBytesAllowed?: boolean;
  }
  interface FastifyInstance {
    /** Every route registered, in order; the access-matrix test checks that each one has an entry. */
    readonly routeList: readonly RouteEntry[];
    /** Ends the server's connections when the app closes; streams register their answers with it. */
    readonly connectionDrain: ConnectionDrain;
  }
}

/** Largest JSON body any route accepts unless it says otherwise. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Options of the HTTP layer that are not deployment settings. */
export interface AppOptions {
  readonly logger: FastifyBaseLogger;
  /** Log every request; off by default because it is noisy. */
  readonly logRequests: boolean;
  /** A built web dashboard to serve instead of the one found beside the code (tests). */
  readonly dashboardDirectory?: string | undefined;
}

/**
 * Builds the fastify app: one error handler in the spec's shape, the route plugins under
 * `/api/v2`, and the OpenAPI document at `/swagger` when enabled.
 */
export async function buildApp(context: ApiContext, options: AppOptions): Promise<FastifyInstance> {
  const timeouts = apiServerTimeouts(context.values);
  const bodyTimeoutMs = context.values.httpBodyTimeoutMs;
  const settleClientAddress = clientAddressSettler(context.values);
  const app = Fastify({
    ...fastifyLogging(options.logger, options.logRequests, settleClientAddress),
    bodyLimit: DEFAULT_BODY_LIMIT,
    // A client that never finishes its headers is answered 408 and cut off (see apiServerTimeouts);
    // bodies are timed per request, below. fastify sets the server's requestTimeout from its own option.
    requestTimeout: timeouts.requestTimeout,
    http: timeouts,
    clientErrorHandler: answerClientError,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : newRequestId();
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  // First of all hooks: every later reader of `request.ip` sees the client behind a trusted proxy.
  if (settleClientAddress) {
    app.addHook('onRequest', (request, _reply, done) => {
      settleClientAddress(request);
      done();
    });
  }
  app.setValidatorCompiler(validatorCompiler);
  registerJsonBodyParser(app);
  const routeList: RouteEntry[] = [];
  app.decorate('routeList', routeList);
  // Closing waits for every open connection: the drain bounds that wait (see ConnectionDrain).
  const drain = new ConnectionDrain(app.server);
  app.decorate('connectionDrain', drain);
  app.addHook('preClose', (done) => {
    drain.drain();
    done();
  });
  const { observer } = context;
  app.addHook('onRoute', function (route) {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routeList.push({ method, url: route.url });
    }
    refuseWebSocketOutsideScope(this, route);
    // A route that is only a WebSocket would answer a plain request with an empty 404; say what it is.
    if (route.websocket === true) route.preHandler = [...[route.preHandler ?? []].flat(), refusePlainRequest];
    // A body whose every field is optional may be left out: validation then sees an empty object.
    if (bodyIsOptional(route.schema?.body)) {
      const emptyBody = (request: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
        if (request.body === undefined) request.body = {};
        done();
      };
      route.preValidation = [emptyBody, ...[route.preValidation ?? []].flat()];
    }
    // No text the API stores or looks up may hold a NUL byte: PostgreSQL refuses them in text.
    // Workspace apps are proxied as they are: what their requests carry is theirs. Decided here,
    // once per route, rather than by a hook that asks every request which route it is on.
    if (route.url.startsWith('/api/v2') && route.config?.nulBytesAllowed !== true) {
      route.preValidation = [...[route.preValidation ?? []].flat(), refuseNulBytes];
    }
    // Each route reports answers under its own pattern, known here once: asking fastify on every
    // answer (`request.routeOptions`) builds an object of all the route's options each time.
    if (observer) route.onResponse = [...[route.onResponse ?? []].flat(), reportAnswer(observer, route.url)];
  });
  // Declared up front so every request object has the same shape, which keeps property access fast.
  app.decorateRequest('auth', undefined);
  app.decorateRequest('resources', undefined as unknown as PathResources);

  app.setErrorHandler(async (error, request, reply) => {
    const problem = toProblem(error);
    if (problem.status >= 500) request.log.error({ err: error }, problem.logMessage ?? 'request failed');
    if (problem.headers) void reply.headers(problem.headers);
    // A body left unread would make the client's writes fail before it reads this answer.
    if (!(await drainRequest(request.raw))) void reply.header('connection', 'close');
    return reply.code(problem.status).type('application/json; charset=utf-8').send(problem.body);
  });
  const dashboardPage = new DashboardPage(options.dashboardDirectory);
  app.setNotFoundHandler(async (request, reply) =>
    isPageLoad(request)
      ? dashboardPage.send(reply, 404)
      : reply.code(404).send({ message: 'Route not found.', detail: `${request.method} ${request.url.split('?')[0]}` }),
  );
  // Callback style: this runs on every answer, and an async hook costs a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    // One call each rather than `reply.headers({...})`: no object to build and walk per request.
    void reply.header('x-cove-build-version', VERSION);
    void reply.header('x-content-type-options', 'nosniff');
    void reply.header('x-request-id', request.id);
    request.resources = {};
    startBodyTimeout(request.raw, bodyTimeoutMs);
    // Common HTTP libraries send a form content type with an empty body on writes without data;
    // an empty body is no body, whatever type it claims, so routes without one still answer.
    if (request.headers['content-length'] === '0' && request.headers['transfer-encoding'] === undefined) {
      delete request.headers['content-type'];
    }
    // An upgrade request that a plain route answers keeps its socket, which the HTTP server no
    // longer manages: close it once answered. (The WebSocket plugin does so only where it is
    // registered; a WebSocket route that upgrades never finishes an answer.)
    if ((request.raw as { upgrade?: boolean }).upgrade === true) reply.raw.once('finish', () => request.raw.socket.destroy());
    done();
  });

  if (context.values.traceEnable) registerRequestSpans(app);

  if (observer) {
    // Callback style, as above. Requests no route matched share one label, so stray paths cannot
    // grow the series; the routes' own hooks (see onRoute above) report the others.
    const reportUnmatched = reportAnswer(observer, 'unmatched');
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404) reportUnmatched(request, reply, done);
      else done();
    });
  }

  if (context.values.swaggerEnable) await registerSwagger(app);
  // Workspace apps live at the root (`/@owner/...` and hosts under the wildcard access URL), ahead
  // of the routes. Their upgrades come through the WebSocket plugin's listener (registerWebSocketScope).
  registerAppProxy(app, context);
  // Before the routes: it watches their registration.
  registerAuditHook(app, context);

  await app.register(
    async (api) => {
      // The API's JSON answers compressed when over 1 KB (a list page of workspaces is a few hundred
      // KB of JSON, a tenth of it compressed). Event streams and WebSockets are left alone: a
      // compressor holds back what it has not filled a block with.
      await api.register(fastifyCompress, {
        global: true,
        threshold: 1024,
        encodings: ['br', 'gzip'],
        customTypes: /^application\/json\b/,
      });
      await api.register(publicGeneralRoutes, context);
      await api.register(publicUserRoutes, context);
      await api.register(signInProviderRoutes, context);
      await api.register(authenticatedGeneralRoutes, context);
      await api.register(authenticatedUserRoutes, context);
      await api.register(apiKeyRoutes, context);
      await api.register(organizationRoutes, context);
      await api.register(roleRoutes, context);
      await api.register(authcheckRoutes, context);
      await api.register(userAdminRoutes, context);
      await api.register(gitSshKeyRoutes, context);
      await api.register(fileRoutes, context);
      await api.register(templateRoutes, context);
      await api.register(templateAclRoutes, context);
      await api.register(workspaceScheduleRoutes, context);
      await api.register(instanceIdentityRoutes, context);
      await api.register(debugRelayRoutes, context);
      await api.register(debugHealthRoutes, context);
      await api.register(applicationRoutes, context);
      await api.register(insightsRoutes, context);
      await api.register(licenseRoutes, context);
      await api.register(connectionLogRoutes, context);
      await api.register(appearanceRoutes, context);
      await api.register(regionRoutes, context);
      await api.register(userSettingsRoutes, context);
      await api.register(workspaceSharingRoutes, context);
      await api.register(reconnectingPtyTokenRoutes, context);
      await api.register(groupRoutes, context);
      await api.register(workspaceQuotaRoutes, context);
      await api.register(idpSyncRoutes, context);
      await api.register(externalAuthRoutes, context);
      await api.register(auditRoutes, context);
      await api.register(notificationRoutes, context);
      // The groups with WebSocket routes, apart: the WebSocket plugin's hooks run on theirs only.
      await registerWebSocketScope(
        api,
        [
          templateVersionRoutes,
          provisionerRoutes,
          workspaceRoutes,
          workspaceActivityRoutes,
          agentSelfRoutes,
          workspaceAgentRoutes,
          workspaceAgentRelayRoutes,
          healthProbeRoutes,
          inboxNotificationRoutes,
        ],
        context,
      );
    },
    { prefix: '/api/v2' },
  );
  await app.register(binaryRoutes, context);
  await app.register(cliAuthRoutes, context);
  await app.register(externalAuthCallbackRoutes, context);
  await app.register(webDashboardRoutes, { page: dashboardPage });
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => reply.type('text/plain').send('OK'));
  return app;
}

async function registerSwagger(app: FastifyInstance): Promise<void> {
  const { default: swagger } = await import('@fastify/swagger');
  await app.register(swagger, {
    openapi: {
      info: { title: 'Cove API', version: VERSION, description: 'The /api/v2 surface of a Cove deployment.' },
      components: {
        securitySchemes: { SessionToken: { type: 'apiKey', in: 'header', name: 'Service-Session-Token' } },
      },
      security: [{ SessionToken: [] }],
    },
  });
  app.get('/swagger', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * Ids of requests that bring none: a random prefix, made anew every 2^31 requests, and a counter,
 * spelled as a UUID. As unique as a random UUID per request, for a fraction of its cost.
 */
const newRequestId = ((): (() => string) => {
  let prefix = '';
  let next = 0x7fffffff;
  return () => {
    if (next === 0x7fffffff) {
      prefix = randomUUID().slice(0, 24);
      next = 0;
    }
    // Joined rather than concatenated: V8 keeps a concatenation this long as a pair of strings, and
    // Node's check of the header value would then take its slow path to flatten it on every answer.
    return [prefix, (next++).toString(16).padStart(12, '0')].join('');
  };
})();

/** An `onResponse` hook telling the observer of each answer under the route pattern `route`. */
function reportAnswer(observer: ApiObserver, route: string): (request: FastifyRequest, reply: FastifyReply, done: () => void) => void {
  return (request, reply, done) => {
    observer.requestDone(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  };
}

/** For WebSocket-only routes, after authentication and path checks: a request that is not an upgrade is a 400. */
function refusePlainRequest(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  if (request.ws === true) return done();
  done(new HttpProblem(400, 'This endpoint is a WebSocket.', { detail: 'Connect with a WebSocket upgrade request.' }));
}

/** Answers 400 when the request's parameters, query or body hold a NUL byte anywhere. */
function refuseNulBytes(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  // Parameters and query are decoded from the URL, where a NUL byte can only be spelled `%00`:
  // most requests need no walk through them, and a GET without a body none at all.
  const url = request.url;
  const inUrl = url.includes('%00') || url.includes('\u0000');
  const field =
    (inUrl ? (nulBytePath(request.params, 'params') ?? nulBytePath(request.query, 'query')) : undefined) ??
    nulBytePath(request.body, 'body');
  if (field === undefined) return done();
  done(
    new HttpProblem(400, 'Text in the request may not contain NUL bytes.', {
      validations: [{ field, detail: 'contains a NUL byte (\\u0000)' }],
    }),
  );
}

/** Where in a parsed request part a string with a NUL byte is (`body.logs[0].output`), if anywhere. */
function nulBytePath(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  // Parsed JSON nests no deeper than a client sent it; past this depth nothing the API stores is reached.
  if (typeof value !== 'object' || value === null || depth > 32) return undefined;
  // Binary bodies (uploaded archives) are bytes, not text; walking them would copy every byte.
  if (ArrayBuffer.isView(value)) return undefined;
  // Paths are spelled only once a NUL byte is found: this runs on every request.
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (nulBytePath(value[index], '', depth + 1) !== undefined) return nulBytePath(value[index], `${path}[${index}]`, depth + 1);
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (key.includes('\u0000')) return `${path}.${key.replaceAll('\u0000', '\\u0000')}`;
    const item: unknown = Reflect.get(value, key);
    if (nulBytePath(item, '', depth + 1) !== undefined) return nulBytePath(item, `${path}.${key}`, depth + 1);
  }
  return undefined;
}

/** Whether a route's body schema is an object that names no required field. */
function bodyIsOptional(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const type: unknown = Reflect.get(schema, 'type');
  const required: unknown = Reflect.get(schema, 'required');
  return type === 'object' && (!Array.isArray(required) || required.length === 0);
}
