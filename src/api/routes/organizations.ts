import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { createOrganization, deleteOrganization, updateOrganization } from '../../domain/organizations.js';
import { ConflictError, HttpProblem, NotAuthorizedError, NotFoundError } from '../../lib/errors.js';
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
import { authOf, requireAuthentication } from '../plugins/authentication.js';

const OrgParam = Type.Object({ organization: Type.String({ minLength: 1 }) });
const OrgUserParams = Type.Object({ organization: Type.String({ minLength: 1 }), user: Type.String({ minLength: 1 }) });

/** Organizations and their members. */
export async function organizationRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const orgOf = (request: { params: unknown }) => (request.params as { organization: string }).organization;

  const resolveUser = (param: string, callerId: string) => resolveMemberUser(context.store, param, callerId);

  app.get('/organizations', { schema: { response: { 200: Type.Array(Organization) } } }, async (request) => {
    const rows = await authOf(request).store.listOrganizations();
    return rows.map(toWireOrganization);
  });

  app.post('/organizations', { schema: { body: CreateOrganizationRequest, response: { 201: Organization } } }, async (request, reply) => {
    const { store } = authOf(request);
    try {
      const row = await createOrganization(store, request.body as CreateOrganizationRequest, context.store.clock.now());
      return reply.code(201).send(toWireOrganization(row));
    } catch (error) {
      if (error instanceof NotAuthorizedError)
        throw new HttpProblem(403, 'Forbidden.', { detail: 'Only owners may create organizations.' });
      throw error;
    }
  });

  app.get('/organizations/:organization', { schema: { params: OrgParam, response: { 200: Organization } } }, async (request) =>
    toWireOrganization(await authOf(request).store.getOrganization(orgOf(request))),
  );

  app.patch(
    '/organizations/:organization',
    { schema: { params: OrgParam, body: UpdateOrganizationRequest, response: { 200: Organization } } },
    async (request) =>
      toWireOrganization(await updateOrganization(authOf(request).store, orgOf(request), request.body as UpdateOrganizationRequest)),
  );

  app.delete('/organizations/:organization', { schema: { params: OrgParam, response: { 200: Response } } }, async (request) => {
    await deleteOrganization(authOf(request).store, orgOf(request));
    return { message: 'Organization has been deleted.' };
  });

  app.get(
    '/organizations/:organization/members',
    { schema: { params: OrgParam, response: { 200: Type.Array(OrganizationMemberWithUser) } } },
    async (request) => {
      const { store } = authOf(request);
      const organization = await store.getOrganization(orgOf(request));
      return (await store.listMembers(organization.id, { limit: 0, offset: 0 })).rows.map(toWireMemberWithUser);
    },
  );

  app.get(
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
      const organization = await store.getOrganization(orgOf(request));
      const query = request.query as { limit?: number; offset?: number };
      const { rows, count } = await store.listMembers(organization.id, { limit: query.limit ?? 0, offset: query.offset ?? 0 });
      return { members: rows.map(toWireMemberWithUser), count };
    },
  );

  app.post(
    '/organizations/:organization/members/:user',
    { schema: { params: OrgUserParams, response: { 200: OrganizationMember } } },
    async (request) => {
      const { store, user: caller } = authOf(request);
      const organization = await store.getOrganization(orgOf(request));
      const user = await resolveUser((request.params as { user: string }).user, caller.id);
      try {
        return toWireMember(await store.addMember(organization.id, user.id));
      } catch (error) {
        if (error instanceof ConflictError) throw new HttpProblem(400, 'Organization member already exists in this organization');
        throw error;
      }
    },
  );

  app.delete('/organizations/:organization/members/:user', { schema: { params: OrgUserParams } }, async (request, reply) => {
    const { store, user: caller } = authOf(request);
    const organization = await store.getOrganization(orgOf(request));
    const user = await resolveUser((request.params as { user: string }).user, caller.id);
    if (user.id === caller.id) throw new HttpProblem(400, 'cannot remove self from an organization');
    // A membership the caller cannot see is missing to them; one they see but may not end is a 403.
    await store.getMember(organization.id, user.id);
    await store.removeMember(organization.id, user.id);
    return reply.code(204).send();
  });
}
