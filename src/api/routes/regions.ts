import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { RegionsResponse } from '../../sdk/wire/index.js';
import { appsHost } from '../apps/app-request.js';
import type { ApiContext } from '../context.js';
import { requireAuthentication } from '../plugins/authentication.js';

/**
 * `GET /regions`: Cove has no workspace proxies, so the one region is the deployment itself,
 * named and pictured as the reference names its primary region.
 */
export async function regionRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/regions', { schema: { response: { 200: RegionsResponse } } }, async () => ({
    regions: [
      {
        id: context.identity.deploymentId,
        name: 'primary',
        display_name: 'Default',
        icon_url: '/emojis/1f3e1.png',
        healthy: true,
        path_app_url: context.values.accessUrl,
        wildcard_hostname: appsHost(context.values.wildcardAccessUrl, context.values.accessUrl),
      },
    ],
  }));
}
