import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { isUuid, newId } from '../../lib/random.js';
import { SYSTEM_SUBJECTS } from '../../rbac/system-subjects.js';
import type { AuditRequest, AuthorizedStore } from '../../store/authorized-store.js';
import type { ApiContext } from '../context.js';
import { AUDITED_ROUTES, type AuditedRoute } from './audit-routes.js';
import { auditRequestOf, newAuditRequest } from './authentication.js';

const API_PREFIX = '/api/v2';
const STATE_CHANGING: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** What a change writes its entry with when it says nothing else. */
const DEFAULT_STATUS = 200;
const TRANSITIONS: ReadonlySet<string> = new Set(['start', 'stop', 'delete']);

/**
 * Completes the audit log once an answer is sent, for every state-changing route: the entries a
 * request's changes wrote get the answer's status, and a request of a route of AUDITED_ROUTES that
 * wrote none (refused, invalid, failed before its change, or a change not written through
 * `audited`) gets an entry of its own. It runs after the answer left, so it neither delays nor fails it; its errors
 * are logged. Registered before the routes, whose registration it watches.
 */
export function registerAuditHook(app: FastifyInstance, context: ApiContext): void {
  // The caller may have no right to write entries, and need not be signed in at all.
  const store = context.store.as(SYSTEM_SUBJECTS.auditLogger);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(API_PREFIX)) return;
    for (const method of [route.method].flat()) {
      if (!STATE_CHANGING.has(method)) continue;
      // Routes left out of the table still get their entries' status corrected (a sign-in's 201).
      const audited = AUDITED_ROUTES[`${method} ${route.url.slice(API_PREFIX.length)}`];
      const hook: onResponseHookHandler = (request, reply, done) => {
        done();
        if (request.method !== method) return;
        // Agents' reports and such: nothing written, nothing to write; no promise per request.
        if (audited === undefined && !request.auditRequest?.written.length) return;
        complete(store, context, audited, request, reply).catch((error: unknown) =>
          request.log.error({ err: error }, 'could not complete the audit log of a request'),
        );
      };
      route.onResponse = [...[route.onResponse ?? []].flat(), hook];
    }
  });
}

async function complete(
  store: AuthorizedStore,
  context: ApiContext,
  audited: AuditedRoute | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const status = reply.statusCode;
  // Unauthenticated requests (a sign-in, a refused token) made none yet.
  const auditRequest = auditRequestOf(request, request.auth?.user.id ?? null);
  if (!auditRequest) return;
  // The exports of the entries committed, with the answer's status the entries get below.
  for (const send of auditRequest.settled?.splice(0) ?? []) send(status);
  const written = auditRequest.written;
  if (written.length > 0) {
    if (status === DEFAULT_STATUS) return;
    // None corrected: the change's transaction did not commit, so its entry is not there either.
    const corrected = await store.auditLogs.correctStatus(
      auditRequest.requestId,
      written.map((entry) => entry.id),
      status,
    );
    if (corrected > 0) return;
  }
  if (!audited) return;
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  const ids = Object.values(params).filter((value): value is string => typeof value === 'string' && isUuid(value));
  const organization = params['organization'];
  await store.auditLogs.record({
    id: newId(),
    time: context.store.nowIso(),
    user_id: auditRequest.userId,
    organization_id: organization !== undefined && isUuid(organization) ? organization : '',
    ip: auditRequest.ip,
    user_agent: auditRequest.userAgent,
    resource_type: audited.resourceType,
    // The last id the path names is the resource's (`/organizations/:organization/members/:user`),
    // unless the request makes a new one (a create, a build), which has none yet.
    resource_id: audited.action === 'create' || audited.action === 'transition' ? '' : (ids.at(-1) ?? ''),
    resource_target: '',
    resource_icon: '',
    action: audited.action === 'transition' ? transitionOf(request.body) : audited.action,
    diff: '{}',
    status_code: status,
    additional_fields: '{}',
    request_id: auditRequest.requestId,
  });
}

/** The action of a build request: the transition its body asks for (a start when it names none). */
function transitionOf(body: unknown): string {
  const transition = body !== null && typeof body === 'object' ? (body as { transition?: unknown }).transition : undefined;
  return typeof transition === 'string' && TRANSITIONS.has(transition) ? transition : 'start';
}

/**
 * The audit facts of a sign-in, whatever its method: a provider sends the browser back with a GET,
 * which auditRequestOf leaves out as a read. Nobody is signed in yet; the entry names the user.
 */
export function signInAuditRequest(request: FastifyRequest): AuditRequest {
  return (request.auditRequest ??= newAuditRequest(request, null));
}
