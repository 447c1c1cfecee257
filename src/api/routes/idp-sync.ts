import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { idpSyncSettings } from '../../domain/idp-sync.js';
import { HttpProblem } from '../../lib/errors.js';
import { IdpSyncPreview, OIDCClaimsResponse } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { idpSyncPreview } from '../convert/idp-sync-preview.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { UserParam } from './users.js';

/**
 * What group and role sync see: `GET /users/oidc-claims`, the caller's own last claims, and
 * `GET /users/{user}/idp-sync-preview`, for administrators, what sync makes of a user's claims.
 */
export async function idpSyncRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const settings = idpSyncSettings(context.values);

  api.get('/users/oidc-claims', { schema: { response: { 200: OIDCClaimsResponse } } }, async (request) => {
    const { store, user } = authOf(request);
    if (user.login_type !== 'oidc') {
      throw new HttpProblem(400, 'User is not an OIDC user.', {
        detail: `You sign in with "${user.login_type}"; only users who sign in with OIDC have claims.`,
      });
    }
    const stored = await store.idpSync.claims(user.id, 'oidc');
    return { claims: stored?.claims ?? {} };
  });

  api.get('/users/:user/idp-sync-preview', { schema: { params: UserParam, response: { 200: IdpSyncPreview } } }, async (request) => {
    const { store } = authOf(request);
    const user = pathResource(request, 'user');
    // Sync runs in the default organization only, as the reference's deployment-wide settings do.
    const organizationId = context.identity.defaultOrganization.id;
    const inputs = await store.idpSync.previewInputs(user.id, organizationId);
    return idpSyncPreview(settings, user, organizationId, inputs);
  });
}
