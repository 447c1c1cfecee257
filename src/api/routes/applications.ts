import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { newApiKey } from '../../domain/sessions.js';
import { HttpProblem } from '../../lib/errors.js';
import { appsHost, wildcardMatcher } from '../apps/app-request.js';
import { APP_CONNECT_PARAM, encryptAppConnectKey } from '../apps/app-session-cookie.js';
import type { ApiContext } from '../context.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { isPageLoad, signInLocation } from '../sign-in-redirect.js';

const AuthRedirectQuery = Type.Object({ redirect_uri: Type.Optional(Type.String()) });

/**
 * Where subdomain apps live, and the hand-off that signs a browser in on an app host
 * (reference §6.2). Both need a session: the app host pattern is not told to strangers.
 */
export async function applicationRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/applications/host', { schema: { response: { 200: Type.Object({ host: Type.String() }) } } }, async () => ({
    host: appsHost(context.values.wildcardAccessUrl, context.values.accessUrl),
  }));

  /**
   * Mints an `application_connect` key for the caller (lasting as long as their session, at most
   * the default session duration), encrypts it for the app host, and sends the browser back there
   * with it; the app host turns it into its own cookie.
   */
  api.get(
    '/applications/auth-redirect',
    {
      schema: { querystring: AuthRedirectQuery },
      // A browser without a session (on its way to a subdomain app) signs in and comes back here.
      errorHandler: (error, request, reply) => {
        if (error instanceof HttpProblem && error.status === 401 && isPageLoad(request)) {
          return reply.redirect(signInLocation(context.values.accessUrl, request.url), 303);
        }
        throw error;
      },
    },
    async (request, reply) => {
      const { store, user, apiKey } = authOf(request);
      const { redirect_uri: redirectUri } = request.query;
      if (redirectUri === undefined || redirectUri === '') throw new HttpProblem(400, 'Missing redirect_uri query parameter.');
      let target: URL;
      try {
        target = new URL(redirectUri);
      } catch {
        throw new HttpProblem(400, 'Invalid redirect_uri query parameter.', { detail: `"${redirectUri}" is not an absolute URL.` });
      }
      // Only a web page can take the key: a `javascript:` or `data:` URL would run in the page that
      // follows the redirect, and the scheme of such a URL cannot be swapped for http below
      // (the URL standard keeps a non-web scheme when asked to change it to a web one).
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw new HttpProblem(400, 'Invalid redirect_uri.', {
          detail: `Only http and https URLs can be redirected to, not "${target.protocol}".`,
        });
      }
      const matches = wildcardMatcher(context.values.wildcardAccessUrl);
      if (!matches || matches(target.host) === undefined) {
        throw new HttpProblem(400, 'Invalid redirect_uri.', {
          detail: matches
            ? `The host "${target.host}" is not under this deployment's app host "${appsHost(context.values.wildcardAccessUrl, context.values.accessUrl)}".`
            : 'This deployment serves no subdomain apps (no wildcard access URL is set).',
        });
      }
      target.protocol = new URL(context.values.accessUrl).protocol;

      const now = context.store.clock.now();
      const lifetimeMs = Math.min(Number(apiKey.lifetime_seconds) * 1000, context.values.sessionDurationMs);
      const key = newApiKey({
        userId: user.id,
        loginType: 'password',
        scope: 'application_connect',
        lifetimeMs,
        tokenName: '',
        ipAddress: request.ip,
        now,
      });
      await store.tokens.insert(key.row);
      target.searchParams.set(APP_CONNECT_PARAM, encryptAppConnectKey(context.identity.signingKey, key.token, target.host, now));
      return reply.redirect(target.toString(), 307);
    },
  );
}
