import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticated } from '../../domain/authentication.js';
import { newApiKey, type ApiKeySpec } from '../../domain/sessions.js';
import { formatDuration } from '../../lib/duration.js';
import type { ApiContext } from '../context.js';
import { authenticateToken } from '../plugins/authentication.js';
import { rateLimitHook } from '../plugins/rate-limit.js';
import { toProblem } from '../problems.js';
import { crossOriginRefusal } from '../origin-check.js';
import { presentedToken } from '../session-token.js';
import { denyFraming } from '../frame-protection.js';
import { cliAuthSignedInPage, cliAuthSignedOutPage, cliAuthTokenPage, signInFailedPage } from '../sign-in-pages.js';
import { signInLinks } from './sign-in-providers.js';

/**
 * `/cli-auth`: where `cove login` sends a user who signs in through a provider. A signed-out
 * browser is offered the provider sign-ins, which come back here; a signed-in one may create a
 * session token (with a POST, so that no link or image on another site can mint one) to paste into
 * the CLI.
 */
export async function cliAuthRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  app.addHook(
    'onRequest',
    rateLimitHook(context.rateLimits, (limits) => limits.api),
  );
  // Every answer here is a page, and its button mints a token: no other site may frame it.
  app.addHook('onRequest', (_request, reply, done) => {
    denyFraming(reply);
    done();
  });

  app.get('/cli-auth', { schema: { hide: true } }, async (request, reply) => {
    void reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    const caller = await signedIn(context, request);
    if (!caller) return cliAuthSignedOutPage(signInLinks(context, '/cli-auth'), !context.values.disablePasswordAuth);
    return cliAuthSignedInPage(caller.user.username);
  });

  app.post('/cli-auth', { schema: { hide: true } }, async (request, reply) => {
    void reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    // The session cookie is SameSite=Lax, so another site's form cannot send it; a page on another
    // origin of the same site (another port of the host, an app subdomain) could, and is refused.
    const refusal = crossOriginRefusal(context, request);
    if (refusal) return reply.code(refusal.status).send(signInFailedPage(refusal, undefined));
    const caller = await signedIn(context, request);
    if (!caller) return reply.code(401).send(cliAuthSignedOutPage(signInLinks(context, '/cli-auth'), !context.values.disablePasswordAuth));
    const lifetimeMs = context.values.defaultTokenLifetimeMs;
    const key = newApiKey({
      userId: caller.user.id,
      loginType: signedInWith(caller.apiKey.login_type),
      scope: 'all',
      lifetimeMs,
      tokenName: '',
      ipAddress: request.ip,
      now: context.store.clock.now(),
    });
    try {
      await context.store.as(caller.subject).tokens.insert(key.row);
    } catch (error) {
      const problem = toProblem(error);
      return reply.code(problem.status).send(signInFailedPage(problem.body, undefined));
    }
    return cliAuthTokenPage(caller.user.username, key.token, formatDuration(lifetimeMs));
  });
}

async function signedIn(context: ApiContext, request: FastifyRequest): Promise<Authenticated | undefined> {
  const token = presentedToken(request);
  if (!token) return undefined;
  try {
    const caller = await authenticateToken(context, token, request.ip);
    return caller.subject.scope === 'all' ? caller : undefined;
  } catch {
    return undefined;
  }
}

/** The token carries how its user signed in, as the session it was made from does. */
function signedInWith(loginType: string): ApiKeySpec['loginType'] {
  return loginType === 'oidc' || loginType === 'github' || loginType === 'token' ? loginType : 'password';
}
