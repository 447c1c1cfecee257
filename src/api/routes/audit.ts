import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { parseAuditSearch, type AuditSearchVocabulary } from '../../domain/audit-search.js';
import { NotAuthorizedError } from '../../lib/errors.js';
import { AUDIT_RESOURCE_TYPES, AuditAction, AuditLogResponse } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireAuditLogs } from '../convert/audit-log.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { forbidden } from '../problems.js';

const VOCABULARY: AuditSearchVocabulary = {
  resourceTypes: AUDIT_RESOURCE_TYPES,
  actions: AuditAction.anyOf.map((literal) => String(literal.const)),
};

/** `GET /audit`: who did what, for owners and auditors (an organization's auditors: its entries). */
export async function auditRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/audit',
    {
      schema: {
        querystring: Type.Object({
          q: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
          offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
        }),
        response: { 200: AuditLogResponse },
      },
    },
    async (request) => {
      const { store, user } = authOf(request);
      const { q, limit, offset } = request.query;
      const filter = parseAuditSearch(q, VOCABULARY, user.id);
      try {
        const count = await store.auditLogs.count(filter);
        if (count === 0) return { audit_logs: [], count };
        return toWireAuditLogs(await store.auditLogs.list(filter, { limit: limit || 100, offset: offset ?? 0 }), count);
      } catch (error) {
        // The reference answers 403, not 404: the log exists, the caller may not read it.
        if (error instanceof NotAuthorizedError) throw forbidden();
        throw error;
      }
    },
  );
}
