import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { readWorkspaceAcl, updateWorkspaceAcl } from '../../domain/workspace-acl.js';
import { MinimalUser, UpdateWorkspaceACL, WorkspaceACL, WorkspaceSharingSettings } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { UserPickerQuery } from '../paging.js';
import { toWireWorkspaceAcl } from '../convert/workspace-acl.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { OrgParam } from './organizations.js';

const WorkspaceParam = Type.Object({ workspace: Type.String() });

/**
 * Workspace sharing: who a workspace is shared with (`/workspaces/{workspace}/acl`), whom its
 * sharing dialog offers (`available-users`), and the organization's switch that turns it off.
 */
export async function workspaceSharingRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/workspaces/:workspace/acl', { schema: { params: WorkspaceParam, response: { 200: WorkspaceACL } } }, async (request) =>
    toWireWorkspaceAcl(await readWorkspaceAcl(authOf(request).store, request.params.workspace)),
  );

  api.patch('/workspaces/:workspace/acl', { schema: { params: WorkspaceParam, body: UpdateWorkspaceACL } }, async (request, reply) => {
    await updateWorkspaceAcl(authOf(request).store, request.params.workspace, request.body);
    return reply.code(204).send();
  });

  api.delete('/workspaces/:workspace/acl', { schema: { params: WorkspaceParam } }, async (request, reply) => {
    await authOf(request).store.workspaceSharing.clearAcl(request.params.workspace);
    return reply.code(204).send();
  });

  api.get(
    '/organizations/:organization/settings/workspace-sharing',
    { schema: { params: OrgParam, response: { 200: WorkspaceSharingSettings } } },
    async (request) => ({
      sharing_disabled: await authOf(request).store.workspaceSharing.sharingDisabled(pathResource(request, 'organization').id),
    }),
  );

  api.patch(
    '/organizations/:organization/settings/workspace-sharing',
    { schema: { params: OrgParam, body: WorkspaceSharingSettings, response: { 200: WorkspaceSharingSettings } } },
    async (request) => {
      const { store } = authOf(request);
      const organization = pathResource(request, 'organization');
      await store.workspaceSharing.setSharingDisabled(organization.id, request.body.sharing_disabled);
      return { sharing_disabled: await store.workspaceSharing.sharingDisabled(organization.id) };
    },
  );

  api.get(
    '/workspaces/:workspace/available-users',
    { schema: { params: WorkspaceParam, querystring: UserPickerQuery, response: { 200: Type.Array(MinimalUser) } } },
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
