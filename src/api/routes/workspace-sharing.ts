import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { MinimalUser } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

const WorkspaceParam = Type.Object({ workspace: Type.String() });
const AvailableUsersQuery = Type.Object({
  q: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
});

/** `GET /workspaces/{workspace}/available-users`: whom the workspace's sharing dialog offers. */
export async function workspaceSharingRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/workspaces/:workspace/available-users',
    { schema: { params: WorkspaceParam, querystring: AvailableUsersQuery, response: { 200: Type.Array(MinimalUser) } } },
    async (request) => {
      const { q, limit, offset } = request.query;
      const rows = await authOf(request).store.workspaceSharing.availableUsers(request.params.workspace, {
        search: q ?? '',
        limit: limit ?? 0,
        offset: offset ?? 0,
      });
      // Empty name and avatar are left out, as the reference's omitempty fields are.
      return rows.map((row) => ({
        id: row.id,
        username: row.username,
        ...(row.name !== '' ? { name: row.name } : {}),
        ...(row.avatar_url !== '' ? { avatar_url: row.avatar_url } : {}),
      }));
    },
  );
}
