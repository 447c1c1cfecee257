import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, type Authenticated } from '../../domain/authentication.js';
import { HttpProblem } from '../../lib/errors.js';
import { SYSTEM_SUBJECTS } from '../../rbac/system-subjects.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { ApiContext } from '../context.js';
import { presentedToken } from '../session-token.js';
import { rateLimitHook } from './rate-limit.js';

/** The signed-in caller of a request, and the store as that caller sees it. */
export interface RequestAuth extends Authenticated {
  readonly store: AuthorizedStore;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on routes registered under `requireAuthentication`; absent elsewhere. */
    auth?: RequestAuth;
  }
}

/**
 * Resolves a presented token to its caller, or throws the 401 that says why not. Runs as the
 * authenticator: no user's subject fits, since who the user is is what it finds out.
 */
export function authenticateToken(context: ApiContext, token: string | undefined, ipAddress: string): Promise<Authenticated> {
  return authenticate(context.store.as(SYSTEM_SUBJECTS.authenticator), context.values, {
    token,
    ipAddress,
    now: context.store.clock.now(),
  });
}

/**
 * Makes every route registered in this encapsulated context authenticated: the token becomes a
 * subject and an authorizing store before validation runs, so a stranger gets 401 whatever the body.
 */
export function requireAuthentication(app: FastifyInstance, context: ApiContext): void {
  app.addHook('onRequest', async (request) => {
    const authenticated = await authenticateToken(context, presentedToken(request), request.ip);
    // Routes that read the caller directly (`/users/me`) would otherwise let an app-only key through.
    if (authenticated.subject.scope === 'application_connect') {
      throw new HttpProblem(403, 'This token may only be used to open workspace apps.', {
        detail: 'It was issued for an app host; sign in with "cove login" for the API.',
      });
    }
    request.auth = { ...authenticated, store: context.store.as(authenticated.subject) };
  });
  app.addHook(
    'onRequest',
    rateLimitHook(context.rateLimits, (limits) => limits.api),
  );
}

/** The caller of an authenticated route. Throws if a route forgot to require authentication. */
export function authOf(request: FastifyRequest): RequestAuth {
  if (!request.auth) throw new Error(`route ${request.routeOptions.url ?? request.url} is not authenticated`);
  return request.auth;
}
