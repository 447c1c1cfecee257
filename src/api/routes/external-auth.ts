import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { FastifyInstance } from 'fastify';
import { completeDeviceLink, startDeviceLink, type LinkFlowContext } from '../../domain/external-auth/link-flow.js';
import { freshToken, providerById } from '../../domain/external-auth/links.js';
import { HttpProblem } from '../../lib/errors.js';
import {
  DeleteExternalAuthByIDResponse,
  ExternalAuth,
  ExternalAuthDevice,
  ExternalAuthDeviceExchange,
  ListUserExternalAuthResponse,
} from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireExternalAuthLink, toWireExternalAuthProvider } from '../convert/external-auth.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

export const ProviderParam = Type.Object({ externalauth: Type.String({ minLength: 1, maxLength: 256 }) });

/**
 * The signed-in user's links to external auth providers: list, inspect, unlink, and link by the
 * device flow (the browser's link flow is external-auth-callback.ts). Every route acts on the
 * caller's own links only.
 */
export async function externalAuthRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const providers = () => context.values.externalAuthProviders;
  const providerOf = (request: FastifyRequest<{ Params: { externalauth: string } }>) =>
    providerById(providers(), request.params.externalauth);
  const flowContext = (request: FastifyRequest): LinkFlowContext => ({
    store: authOf(request).store,
    oauth: context.externalAuthOAuth,
    events: context.store.pubsub,
    accessUrl: context.values.accessUrl,
    now: context.store.clock.now(),
  });

  api.get('/external-auth', { schema: { response: { 200: ListUserExternalAuthResponse } } }, async (request) => {
    const { store, user } = authOf(request);
    const links = await store.externalAuth.list(user.id);
    const now = context.store.clock.now();
    return {
      providers: providers().map(toWireExternalAuthProvider),
      links: links.map((link) =>
        toWireExternalAuthLink(
          link,
          providers().find((provider) => provider.id === link.providerId),
          now,
        ),
      ),
    };
  });

  api.get('/external-auth/:externalauth', { schema: { params: ProviderParam, response: { 200: ExternalAuth } } }, async (request) => {
    const provider = providerOf(request);
    const { store, user } = authOf(request);
    const fresh = await freshToken(store, context.externalAuthOAuth, provider, user.id, {
      now: () => context.store.clock.now(),
      validate: 'always',
    });
    return {
      authenticated: fresh.kind === 'token',
      device: provider.deviceFlow,
      display_name: provider.displayName,
      supports_revocation: provider.revokeUrl !== '',
      user: fresh.kind === 'token' ? fresh.user : null,
      app_installable: false,
      installations: [],
      app_install_url: provider.appInstallUrl,
    };
  });

  api.delete(
    '/external-auth/:externalauth',
    { schema: { params: ProviderParam, response: { 200: DeleteExternalAuthByIDResponse } } },
    async (request) => {
      const provider = providerOf(request);
      const { store, user } = authOf(request);
      const removed = await store.externalAuth.delete(provider.id, user.id);
      if (!removed) throw new HttpProblem(404, 'Resource not found or you do not have access to this resource');
      if (provider.revokeUrl === '') return { token_revoked: false };
      try {
        await context.externalAuthOAuth.revoke(provider, removed);
        return { token_revoked: true };
      } catch (error) {
        // The link is gone whatever the provider said: the user learns the token may still work there.
        return { token_revoked: false, token_revocation_error: error instanceof Error ? error.message : String(error) };
      }
    },
  );

  api.get(
    '/external-auth/:externalauth/device',
    { schema: { params: ProviderParam, response: { 200: ExternalAuthDevice } } },
    async (request) => startDeviceLink(context.externalAuthOAuth, providerOf(request)),
  );

  api.post(
    '/external-auth/:externalauth/device',
    { schema: { params: ProviderParam, body: ExternalAuthDeviceExchange } },
    async (request, reply) => {
      const provider = providerOf(request);
      await completeDeviceLink(flowContext(request), provider, authOf(request).user.id, request.body.device_code);
      return reply.code(204).send();
    },
  );
}
