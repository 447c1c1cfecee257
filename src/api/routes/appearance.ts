import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { bannerProblem, resolveAppearance } from '../../domain/appearance.js';
import { HttpProblem } from '../../lib/errors.js';
import { AppearanceConfig, UpdateAppearanceConfig } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

/**
 * `GET`/`PUT /appearance`: the name, logo, banners and help links of the dashboard. Free in Cove:
 * the server options give the defaults, an owner's `PUT` wins over them.
 */
export async function appearanceRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/appearance', { schema: { response: { 200: AppearanceConfig } } }, async (request) =>
    resolveAppearance(context.values, await authOf(request).store.appearance.get()),
  );

  // Answers what was stored, as the reference does.
  api.put('/appearance', { schema: { body: UpdateAppearanceConfig, response: { 200: UpdateAppearanceConfig } } }, async (request) => {
    const body = request.body;
    for (const banner of [...(body.service_banner ? [body.service_banner] : []), ...(body.announcement_banners ?? [])]) {
      const problem = bannerProblem(banner);
      if (problem !== undefined) throw new HttpProblem(400, problem);
    }
    await authOf(request).store.appearance.set(JSON.stringify(body));
    return body;
  });
}
