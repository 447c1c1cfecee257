import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { parseConnectionLogSearch } from '../../domain/connection-log-search.js';
import { HttpProblem, isNotFoundOrHidden, NotAuthorizedError } from '../../lib/errors.js';
import { ConnectionLogResponse } from '../../sdk/wire/index.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { ApiContext } from '../context.js';
import { toWireConnectionLogs } from '../convert/connection-log.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { forbidden } from '../problems.js';

/** A page holds this many rows when the caller names no limit, as the reference. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** `GET /connectionlog`: terminals, SSH sessions, forwarded ports and app sessions, for owners and auditors. */
export async function connectionLogRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/connectionlog',
    {
      schema: {
        querystring: Type.Object({
          q: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LIMIT })),
          offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
        }),
        response: { 200: ConnectionLogResponse },
      },
    },
    async (request) => {
      const { store, user } = authOf(request);
      const search = parseConnectionLogSearch(request.query.q, user.id);
      const organizationId = search.organization === undefined ? undefined : await organizationIdOf(store, search.organization);
      try {
        const page = await store.connectionLogs.list(
          { ...search.filter, organizationId },
          { limit: request.query.limit || DEFAULT_LIMIT, offset: request.query.offset ?? 0 },
        );
        // An open connection's row holds its bytes only once it ends; this replica knows them so far.
        const rows = page.rows.map((row) => {
          const live = row.disconnect_time === null ? context.connectionLog.live(row.id) : undefined;
          if (!live) return row;
          return {
            ...row,
            bytes_to_workspace: live.bytesToWorkspace,
            bytes_from_workspace: live.bytesFromWorkspace,
            code: row.code ?? live.code,
          };
        });
        return { connection_logs: toWireConnectionLogs({ ...page, rows }), count: page.count };
      } catch (error) {
        // The log is readable by some only; to the others it is forbidden, not missing.
        if (error instanceof NotAuthorizedError) throw forbidden();
        throw error;
      }
    },
  );
}

/** The id of the organization a search names; a 400 when the caller can see none of that name or id. */
async function organizationIdOf(store: AuthorizedStore, nameOrId: string): Promise<string> {
  try {
    return (await store.organizations.get(nameOrId)).id;
  } catch (error) {
    if (!isNotFoundOrHidden(error)) throw error;
    throw new HttpProblem(400, 'Invalid connection search query.', {
      validations: [
        { field: 'organization', detail: `Organization "${nameOrId}" either does not exist, or you are unauthorized to view it` },
      ],
    });
  }
}
