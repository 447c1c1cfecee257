import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { NotAuthorizedError } from '../../lib/errors.js';
import { builtInOrgRole, builtInSiteRole, MEMBER_ROLE, ORG_ROLE_NAMES, SITE_ROLE_NAMES, type Role } from '../../rbac/index.js';
import { AssignableRole } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toAssignableRole } from '../convert/role.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { forbidden } from '../problems.js';

/** The role listings: site roles, and the roles of one organization with its custom roles. */
export async function roleRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);

  app.get('/users/roles', { schema: { response: { 200: Type.Array(AssignableRole) } } }, async (request) => {
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

  app.get(
    '/organizations/:organization/members/roles',
    { schema: { params: Type.Object({ organization: Type.String({ minLength: 1 }) }), response: { 200: Type.Array(AssignableRole) } } },
    async (request) => {
      const { store, subject } = authOf(request);
      const organization = await store.getOrganization((request.params as { organization: string }).organization);
      const custom = await store.listCustomRoles(organization.id);
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
}
