import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { builtInOrgRole, builtInSiteRole, MEMBER_ROLE, ORG_ROLE_NAMES, SITE_ROLE_NAMES, type Role } from '../../rbac/index.js';
import { AssignableRole, CustomRoleRequest, OrganizationMember, RoleObject } from '../../sdk/wire/index.js';
import { setMemberRoles } from '../../domain/member-roles.js';
import { ConflictError, HttpProblem, NotAuthorizedError } from '../../lib/errors.js';
import { validateCustomOrgRole } from '../../rbac/index.js';
import { toWireMember } from '../convert/member.js';
import type { ApiContext } from '../context.js';
import { resolveMemberUser } from '../member-user.js';
import { toAssignableRole, toRoleObject } from '../convert/role.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { OrgParam } from './organizations.js';
import { forbidden } from '../problems.js';

/** The role listings: site roles, and the roles of one organization with its custom roles. */
export async function roleRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/users/roles', { schema: { response: { 200: Type.Array(AssignableRole) } } }, async (request) => {
    const { store, subject } = authOf(request);
    try {
      store.authorizeSite('read', 'assign_role');
    } catch (error) {
      if (error instanceof NotAuthorizedError) throw forbidden();
      throw error;
    }
    // `member` is implicit for everyone, so it is never listed or assigned.
    return SITE_ROLE_NAMES.filter((name) => name !== MEMBER_ROLE)
      .map((name) => builtInSiteRole(name))
      .filter((role): role is Role => role !== undefined)
      .map((role) => toAssignableRole(role, subject, true));
  });

  api.get(
    '/organizations/:organization/members/roles',
    { schema: { params: OrgParam, response: { 200: Type.Array(AssignableRole) } } },
    async (request) => {
      const { store, subject } = authOf(request);
      const organization = pathResource(request, 'organization');
      const custom = await store.roles.listCustom(organization.id);
      // Roles without a display name (organization-member) are implicit and hidden.
      const builtIn = ORG_ROLE_NAMES.map((name) => builtInOrgRole(name, organization.id)).filter(
        (role): role is Role => role !== undefined && role.display_name !== '',
      );
      return [
        ...builtIn.map((role) => toAssignableRole(role, subject, true)),
        ...custom.map((role) => toAssignableRole(role, subject, false)),
      ];
    },
  );

  for (const [method, mode] of [
    ['POST', 'create'],
    ['PUT', 'update'],
  ] as const) {
    api.route({
      method,
      url: '/organizations/:organization/members/roles',
      // The saved role, as the reference answers both.
      schema: { params: OrgParam, body: CustomRoleRequest, response: { 200: RoleObject } },
      handler: async (request) => {
        const { store, subject } = authOf(request);
        const organization = pathResource(request, 'organization');
        // Refused before the body is judged, so the answer says nothing about the request's contents.
        if (!store.can(mode, { type: 'assign_org_role', org_id: organization.id })) throw forbidden();
        const { body } = request;
        const checked = validateCustomOrgRole(subject, organization.id, { ...body, display_name: body.display_name ?? '' });
        if (!checked.ok) throw new HttpProblem(400, checked.message, checked.detail ? { detail: checked.detail } : {});
        try {
          await store.roles.saveCustom(checked.role, mode);
        } catch (error) {
          if (error instanceof ConflictError) {
            throw new HttpProblem(400, 'Failed to update role permissions', { detail: `a role named "${body.name}" already exists` });
          }
          throw error;
        }
        return toRoleObject(checked.role);
      },
    });
  }

  api.delete(
    '/organizations/:organization/members/roles/:roleName',
    {
      schema: { params: Type.Object({ organization: Type.String(), roleName: Type.String() }), response: { 200: Type.Array(RoleObject) } },
    },
    async (request) => {
      const { store } = authOf(request);
      const { params } = request;
      const organization = pathResource(request, 'organization');
      if (!store.can('delete', { type: 'assign_org_role', org_id: organization.id })) throw forbidden();
      if (!(await store.roles.deleteCustom(organization.id, params.roleName))) {
        throw new HttpProblem(404, `No custom role with the name ${params.roleName} found`, { detail: 'no role found' });
      }
      return (await store.roles.listCustom(organization.id)).map(toRoleObject);
    },
  );

  api.put(
    '/organizations/:organization/members/:user/roles',
    {
      // The user is resolved as a member, not read as a user: see resolveMemberUser.
      config: { loadItself: ['user'] },
      schema: {
        params: Type.Object({ organization: Type.String(), user: Type.String() }),
        body: Type.Object({ roles: Type.Array(Type.String()) }),
        response: { 200: OrganizationMember },
      },
    },
    async (request) => {
      const { store, user: caller } = authOf(request);
      const organization = pathResource(request, 'organization');
      const user = await resolveMemberUser(context, request.params.user, caller.id);
      return toWireMember(await setMemberRoles(store, organization.id, user.id, request.body.roles));
    },
  );
}
