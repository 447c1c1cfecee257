import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { completeLink, startLink } from '../../domain/external-auth/link-flow.js';
import { providerById } from '../../domain/external-auth/links.js';
import { HttpProblem } from '../../lib/errors.js';
import type { ApiContext } from '../context.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { presentedToken } from '../session-token.js';
import { isPageLoad, signInLocation } from '../sign-in-redirect.js';
import { ProviderParam } from './external-auth.js';

/** Text without NUL bytes: the API's routes refuse them for PostgreSQL's sake, and this route is outside the API. */
const Text = (maxLength: number) => Type.Optional(Type.String({ maxLength, pattern: '^[^\\u0000]*$' }));

const CallbackQuery = Type.Object({
  code: Text(4096),
  state: Text(1024),
  redirect: Text(2048),
  // What a provider sends back instead of a code when the user declined or it failed (RFC 6749, 4.1.2.1).
  error: Text(256),
  error_description: Text(2048),
});

/**
 * The browser's link flow, at `/external-auth/{id}/callback` on the access URL (and the older
 * `/gitauth/{id}/callback`), outside `/api/v2` as in the reference: that is the redirect URI
 * operators register with their providers, so an OAuth app made for the reference works here
 * unchanged. Without a code it starts a link for the signed-in user and sends the browser to the
 * provider; with one (the provider sending the browser back) it finishes the link. A signed-out
 * browser is sent to the sign-in page and back here.
 */
export async function externalAuthCallbackRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  app.addHook('onRequest', async (request, reply) => {
    if (presentedToken(request) === undefined && isPageLoad(request)) {
      await reply.code(307).header('location', signInLocation(context.values.accessUrl, request.url)).send();
    }
  });
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const prefix of ['external-auth', 'gitauth']) {
    api.get(
      `/${prefix}/:externalauth/callback`,
      { schema: { hide: true, params: ProviderParam, querystring: CallbackQuery } },
      async (request, reply) => {
        const provider = providerById(context.values.externalAuthProviders, request.params.externalauth);
        const { store, user } = authOf(request);
        const flow = {
          store,
          oauth: context.externalAuthOAuth,
          events: context.store.pubsub,
          accessUrl: context.values.accessUrl,
          now: context.store.clock.now(),
        };
        const query = request.query;
        void reply.header('cache-control', 'no-store');
        if (query.error !== undefined) {
          throw new HttpProblem(400, `The provider did not link the account: ${query.error}.`, {
            detail: query.error_description ?? '',
            validations: [{ field: 'code', detail: query.error }],
          });
        }
        if (query.code === undefined || query.code === '') {
          const target = await startLink(flow, provider, user.id, query.redirect);
          return reply.code(307).header('location', target.toString()).send();
        }
        const redirect = await completeLink(flow, provider, user.id, { code: query.code, state: query.state });
        return reply.code(307).header('location', redirect).send();
      },
    );
  }
}
