import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, authenticateFromCache, authenticateFromDatabase, type Authenticated } from '../../domain/authentication.js';
import { HttpProblem } from '../../lib/errors.js';
import { SYSTEM_SUBJECTS } from '../../rbac/system-subjects.js';
import type { AuditRequest, AuthorizedStore } from '../../store/authorized-store.js';
import type { ApiContext } from '../context.js';
import { crossOriginRefusal, refuseCrossOrigin } from '../origin-check.js';
import { adoptSignedPtySession } from '../apps/reconnecting-pty-token.js';
import { presentedToken } from '../session-token.js';
import { countRequest } from './rate-limit.js';

/** The signed-in caller of a request, and the store as that caller sees it. */
export interface RequestAuth extends Authenticated {
  readonly store: AuthorizedStore;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on routes registered under `requireAuthentication`; absent elsewhere. */
    auth?: RequestAuth;
    /** The audit facts of a state-changing request, once its store was made; see auditRequestOf. */
    auditRequest?: AuditRequest;
  }
}

/**
 * The audit facts of a state-changing request (kept on the request for the API's audit hook), or
 * undefined for a read, whose store writes no entries.
 */
export function auditRequestOf(request: FastifyRequest, userId: string | null): AuditRequest | undefined {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return undefined;
  return (request.auditRequest ??= newAuditRequest(request, userId));
}

/** The audit facts of `request`, whatever its method (a provider's sign-in callback is a GET). */
export function newAuditRequest(request: FastifyRequest, userId: string | null): AuditRequest {
  // The API's audit hook completes the state-changing requests of /api/v2 (src/api/plugins/audit.ts):
  // their entries are exported once it knows the answer's status; others' as they commit.
  const completedByHook = request.url.startsWith('/api/v2/') && request.method !== 'GET';
  return {
    requestId: request.id,
    ip: request.ip,
    userAgent: (request.headers['user-agent'] ?? '').slice(0, 256),
    userId,
    written: [],
    ...(completedByHook ? { settled: [] } : {}),
  };
}

/**
 * The authenticator's store, one per daemon: no user's subject fits, since who the user is is what
 * it finds out. Made once so that what it authorized (a cached session) it need not decide again.
 */
const authenticators = new WeakMap<ApiContext, AuthorizedStore>();

function authenticatorOf(context: ApiContext): AuthorizedStore {
  let store = authenticators.get(context);
  if (!store) {
    store = context.store.as(SYSTEM_SUBJECTS.authenticator);
    authenticators.set(context, store);
  }
  return store;
}

/** Resolves a presented token to its caller, or throws the 401 that says why not. */
export function authenticateToken(context: ApiContext, token: string | undefined, ipAddress: string): Promise<Authenticated> {
  return authenticate(authenticatorOf(context), context.values, { token, ipAddress, now: context.store.clock.now() });
}

/**
 * Authenticates a request by the token it presents, for routes that do so themselves; a request the
 * session cookie would authenticate must come from the deployment's origin (src/api/origin-check.ts).
 */
export async function authenticateRequest(context: ApiContext, request: FastifyRequest): Promise<Authenticated> {
  refuseCrossOrigin(context, request);
  return authenticateToken(context, presentedToken(request), request.ip);
}

/**
 * Makes every route registered in this encapsulated context authenticated: the token becomes a
 * subject and an authorizing store before validation runs, so a stranger gets 401 whatever the body.
 */
export function requireAuthentication(app: FastifyInstance, context: ApiContext): void {
  const signIn = (request: FastifyRequest, authenticated: Authenticated): void => {
    // Routes that read the caller directly (`/users/me`) would otherwise let an app-only key through.
    if (authenticated.subject.scope === 'application_connect') {
      throw new HttpProblem(403, 'This token may only be used to open workspace apps.', {
        detail: 'It was issued for an app host; sign in with "cove login" for the API.',
      });
    }
    const { user, apiKey, subject } = authenticated;
    request.auth = { user, apiKey, subject, store: context.store.as(subject, auditRequestOf(request, user.id)) };
  };
  // Counted after authentication, so that signed-in users get their own buckets; in the same hook,
  // as a request pays for every hook it passes through.
  const limiter = context.rateLimits.api;
  // The daemon gives both the same clock, and then one reading of it serves both.
  const { clock } = context.rateLimits;
  const sameClock = clock === context.store.clock;
  const signInAndCount = (request: FastifyRequest, reply: FastifyReply, authenticated: Authenticated, now: Date): void => {
    signIn(request, authenticated);
    if (limiter) countRequest(limiter, (sameClock ? now : clock.now()).getTime(), request, reply);
  };
  // Callback style with a path that never waits: most requests present a key the session cache
  // answers, and they should not pay for a promise and a turn of the microtask queue.
  app.addHook('onRequest', (request, reply, done) => {
    // The web terminal's signed token stands for the session it seals, on that terminal's socket only.
    adoptSignedPtySession(context.identity.signingKey, request, context.store.clock.now());
    // Before the token is looked up: a page elsewhere learns nothing, and costs no query.
    const refusal = crossOriginRefusal(context, request);
    if (refusal) {
      done(refusal);
      return;
    }
    const presented = { token: presentedToken(request), ipAddress: request.ip, now: context.store.clock.now() };
    try {
      const cached = authenticateFromCache(authenticatorOf(context), context.values, presented);
      if (cached) {
        signInAndCount(request, reply, cached, presented.now);
        done();
        return;
      }
    } catch (error) {
      done(error as Error);
      return;
    }
    authenticateFromDatabase(authenticatorOf(context), context.values, presented)
      .then((authenticated) => signInAndCount(request, reply, authenticated, presented.now))
      .then(
        () => done(),
        (error: unknown) => done(error as Error),
      );
  });
}

/** The caller of an authenticated route. Throws if a route forgot to require authentication. */
export function authOf(request: FastifyRequest): RequestAuth {
  if (!request.auth) throw new Error(`route ${request.routeOptions.url ?? request.url} is not authenticated`);
  return request.auth;
}
