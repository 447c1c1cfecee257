import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Organization } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireOrganization } from '../convert/organization.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

/** Reading organizations: the list the caller may see, and one by id. */
export async function organizationRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);

  app.get('/organizations', { schema: { response: { 200: Type.Array(Organization) } } }, async (request) => {
    const rows = await authOf(request).store.listOrganizations();
    return rows.map(toWireOrganization);
  });

  app.get(
    '/organizations/:organization',
    { schema: { params: Type.Object({ organization: Type.String({ minLength: 1 }) }), response: { 200: Organization } } },
    async (request) => {
      const { organization } = request.params as { organization: string };
      return toWireOrganization(await authOf(request).store.getOrganization(organization));
    },
  );
}
