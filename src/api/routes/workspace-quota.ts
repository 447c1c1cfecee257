import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { workspaceQuota } from '../../domain/workspace-quota.js';
import { WorkspaceQuota } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

/** A user's workspace quota: credits their workspaces consume a day against their groups' budget. */
export async function workspaceQuotaRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  // The reference keeps this one for the default organization, as it was before organizations.
  api.get(
    '/workspace-quota/:user',
    { schema: { params: Type.Object({ user: Type.String() }), response: { 200: WorkspaceQuota } } },
    async (request) => {
      const { store } = authOf(request);
      const organization = await store.organizations.get('default');
      return workspaceQuota(store, pathResource(request, 'user').id, organization.id);
    },
  );

  api.get(
    '/organizations/:organization/members/:user/workspace-quota',
    {
      schema: {
        params: Type.Object({ organization: Type.String(), user: Type.String() }),
        response: { 200: WorkspaceQuota },
      },
    },
    async (request) => workspaceQuota(authOf(request).store, pathResource(request, 'user').id, pathResource(request, 'organization').id),
  );
}
