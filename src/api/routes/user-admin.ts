import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { changePassword, deleteUser, setUserSiteRoles, setUserStatus, updateProfile } from '../../domain/user-admin.js';
import { Response, User } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireUser } from '../convert/user.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { rateLimitHook } from '../plugins/rate-limit.js';
import { UserParam } from './users.js';

/** Changing users: status, site roles, profile, password, deletion. */
export async function userAdminRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const param = (request: { params: unknown }) => (request.params as { user: string }).user;

  for (const [path, status] of [
    ['suspend', 'suspended'],
    ['activate', 'active'],
  ] as const) {
    app.put(`/users/:user/status/${path}`, { schema: { params: UserParam, response: { 200: User } } }, async (request) => {
      const { store } = authOf(request);
      const user = await setUserStatus(store, param(request), status);
      return toWireUser(user, await store.getUserOrganizationIds(user.id));
    });
  }

  app.put(
    '/users/:user/roles',
    { schema: { params: UserParam, body: Type.Object({ roles: Type.Array(Type.String()) }), response: { 200: User } } },
    async (request) => {
      const { store } = authOf(request);
      const user = await setUserSiteRoles(store, param(request), (request.body as { roles: string[] }).roles);
      return toWireUser(user, await store.getUserOrganizationIds(user.id));
    },
  );

  app.put(
    '/users/:user/profile',
    {
      schema: {
        params: UserParam,
        body: Type.Object({ username: Type.String(), name: Type.Optional(Type.String()) }),
        response: { 200: User },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const user = await updateProfile(store, param(request), request.body as { username: string; name?: string });
      return toWireUser(user, await store.getUserOrganizationIds(user.id));
    },
  );

  app.put(
    '/users/:user/password',
    {
      onRequest: rateLimitHook(context.rateLimits, (limits) => limits.login),
      schema: { params: UserParam, body: Type.Object({ old_password: Type.Optional(Type.String()), password: Type.String() }) },
    },
    async (request, reply) => {
      await changePassword(authOf(request).store, param(request), request.body as { old_password?: string; password: string });
      return reply.code(204).send();
    },
  );

  app.delete('/users/:user', { schema: { params: UserParam, response: { 200: Response } } }, async (request) => {
    await deleteUser(authOf(request).store, param(request));
    return { message: 'User has been deleted!' };
  });
}
