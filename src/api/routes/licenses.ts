import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ENTITLEMENTS_CHANNEL } from '../../domain/entitlements.js';
import { LicenseError, verifyLicense } from '../../domain/licenses/verify-license.js';
import { ConflictError, HttpProblem, isNotFoundOrHidden } from '../../lib/errors.js';
import { newId } from '../../lib/random.js';
import { AddLicenseRequest, Entitlements, License, Response } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireLicense } from '../convert/license.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { forbidden } from '../problems.js';

/** A forced refresh is allowed this often, as the reference. */
const REFRESH_INTERVAL_MS = 60_000;

/** `/licenses` and `/entitlements`: licenses signed by a trusted key, and what they entitle the deployment to. */
export async function licenseRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  let lastForcedRefresh = Number.NEGATIVE_INFINITY;
  const changed = async () => {
    await context.entitlements.refresh();
    await context.store.pubsub.publish(ENTITLEMENTS_CHANNEL, context.entitlements.origin);
  };

  api.post('/licenses', { schema: { body: AddLicenseRequest, response: { 201: License } } }, async (request, reply) => {
    const { store } = authOf(request);
    if (!store.can('create', { type: 'license' })) throw forbidden();
    let claims;
    try {
      claims = await verifyLicense(request.body.license.trim(), context.entitlements.keysTrusted, context.store.clock.now());
    } catch (error) {
      if (error instanceof LicenseError) throw new HttpProblem(400, 'Invalid license', { detail: error.message });
      throw error;
    }
    const uuid = typeof claims.jti === 'string' && /^[0-9a-f-]{36}$/i.test(claims.jti) ? claims.jti : newId();
    let row;
    try {
      row = await store.licenses.insert({
        uuid,
        jwt: request.body.license.trim(),
        uploaded_at: context.store.nowIso(),
        exp: new Date((claims.exp ?? 0) * 1000).toISOString(),
      });
    } catch (error) {
      // The license's jti is its uuid: the same license twice.
      if (error instanceof ConflictError) throw new HttpProblem(409, 'This license has already been added.', { detail: `license ${uuid}` });
      throw error;
    }
    await changed();
    return reply.code(201).send(toWireLicense(row));
  });

  api.get('/licenses', { schema: { response: { 200: Type.Array(License) } } }, async (request) =>
    (await authOf(request).store.licenses.list()).map(toWireLicense),
  );

  api.delete('/licenses/:id', { schema: { params: Type.Object({ id: Type.String() }) } }, async (request, reply) => {
    const { store } = authOf(request);
    if (!/^\d+$/.test(request.params.id)) throw new HttpProblem(404, 'License ID must be an integer');
    if (!store.can('delete', { type: 'license' })) throw forbidden();
    try {
      await store.licenses.delete(Number(request.params.id));
    } catch (error) {
      if (isNotFoundOrHidden(error)) throw new HttpProblem(404, 'Unknown license ID');
      throw error;
    }
    await changed();
    return reply.code(200).send();
  });

  api.post('/licenses/refresh-entitlements', { schema: { response: { 201: Response } } }, async (request, reply) => {
    const { store } = authOf(request);
    if (!store.can('create', { type: 'license' })) throw forbidden();
    const now = context.store.clock.now().getTime();
    const wait = Math.ceil((lastForcedRefresh + REFRESH_INTERVAL_MS - now) / 1000);
    if (wait > 0) {
      throw new HttpProblem(400, `Entitlements already recently refreshed, please wait ${wait} seconds to force a new refresh`, {
        headers: { 'Retry-After': String(wait) },
      });
    }
    lastForcedRefresh = now;
    await changed();
    return reply.code(201).send({ message: 'Entitlements updated' });
  });

  api.get('/entitlements', { schema: { response: { 200: Entitlements } } }, async () => context.entitlements.current());
}
