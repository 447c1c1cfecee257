import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { createOrganization, deleteOrganization, updateOrganization } from '../../domain/organizations.js';
import { ConflictError, HttpProblem, NotAuthorizedError } from '../../lib/errors.js';
import {
  CreateOrganizationRequest,
  Organization,
  OrganizationMember,
  OrganizationMemberWithUser,
  PaginatedMembers,
  Response,
  UpdateOrganizationRequest,
} from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { resolveMemberUser } from '../member-user.js';
import { toWireMember, toWireMemberWithUser } from '../convert/member.js';
import { toWireOrganization } from '../convert/organization.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

export const OrgParam = Type.Object({ organization: Type.String({ minLength: 1 }) });
export const OrgUserParams = Type.Object({ organization: Type.String({ minLength: 1 }), user: Type.String({ minLength: 1 }) });

/** Organizations and their members. */
export async function organizationRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/organizations', { schema: { response: { 200: Type.Array(Organization) } } }, async (request) => {
    const rows = await authOf(request).store.organizations.list();
    return rows.map(toWireOrganization);
  });

  api.post('/organizations', { schema: { body: CreateOrganizationRequest, response: { 201: Organization } } }, async (request, reply) => {
    const { store } = authOf(request);
    try {
      const row = await createOrganization(store, request.body, context.store.clock.now());
      return reply.code(201).send(toWireOrganization(row));
    } catch (error) {
      if (error instanceof NotAuthorizedError)
        throw new HttpProblem(403, 'Forbidden.', { detail: 'Only owners may create organizations.' });
      throw error;
    }
  });

  api.get('/organizations/:organization', { schema: { params: OrgParam, response: { 200: Organization } } }, async (request) =>
    toWireOrganization(pathResource(request, 'organization')),
  );

  api.patch(
    '/organizations/:organization',
    { schema: { params: OrgParam, body: UpdateOrganizationRequest, response: { 200: Organization } } },
    async (request) =>
      toWireOrganization(await updateOrganization(authOf(request).store, pathResource(request, 'organization'), request.body)),
  );

  api.delete('/organizations/:organization', { schema: { params: OrgParam, response: { 200: Response } } }, async (request) => {
    await deleteOrganization(authOf(request).store, pathResource(request, 'organization'));
    return { message: 'Organization has been deleted.' };
  });

  api.get(
    '/organizations/:organization/members',
    { schema: { params: OrgParam, response: { 200: Type.Array(OrganizationMemberWithUser) } } },
    async (request) => {
      const { store } = authOf(request);
      const { rows } = await store.members.list(pathResource(request, 'organization').id, { limit: 0, offset: 0 });
      return rows.map(toWireMemberWithUser);
    },
  );

  api.get(
    '/organizations/:organization/paginated-members',
    {
      schema: {
        params: OrgParam,
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
          offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
        }),
        response: { 200: PaginatedMembers },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const { limit, offset } = request.query;
      const page = { limit: limit ?? 0, offset: offset ?? 0 };
      const { rows, count } = await store.members.list(pathResource(request, 'organization').id, page);
      return { members: rows.map(toWireMemberWithUser), count };
    },
  );

  api.post(
    '/organizations/:organization/members/:user',
    // The user is resolved as a member, not read as a user: see resolveMemberUser.
    { config: { loadItself: ['user'] }, schema: { params: OrgUserParams, response: { 200: OrganizationMember } } },
    async (request) => {
      const { store, user: caller } = authOf(request);
      const organization = pathResource(request, 'organization');
      const user = await resolveMemberUser(context, request.params.user, caller.id);
      try {
        return toWireMember(await store.members.add(organization.id, user.id));
      } catch (error) {
        if (error instanceof ConflictError) throw new HttpProblem(400, 'Organization member already exists in this organization');
        throw error;
      }
    },
  );

  api.delete(
    '/organizations/:organization/members/:user',
    // The user is resolved as a member, not read as a user: see resolveMemberUser.
    { config: { loadItself: ['user'] }, schema: { params: OrgUserParams } },
    async (request, reply) => {
      const { store, user: caller } = authOf(request);
      const organization = pathResource(request, 'organization');
      const user = await resolveMemberUser(context, request.params.user, caller.id);
      if (user.id === caller.id) throw new HttpProblem(400, 'cannot remove self from an organization');
      // A membership the caller cannot see is missing to them; one they see but may not end is a 403.
      await store.members.get(organization.id, user.id);
      await store.members.remove(organization.id, user.id);
      return reply.code(204).send();
    },
  );
}
