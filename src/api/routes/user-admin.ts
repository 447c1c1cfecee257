import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { changePassword, deleteUser, setUserSiteRoles, setUserStatus, updateProfile } from '../../domain/user-admin.js';
import { Response, User } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireUser } from '../convert/user.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { rateLimitHook } from '../plugins/rate-limit.js';
import { UserParam } from './users.js';
import { notifyUserStatusChanged } from '../../domain/notifications/events/user-events.js';
import { eventNotifier } from '../event-notifier.js';

/** Changing users: status, site roles, profile, password, deletion. */
export async function userAdminRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  for (const [path, status] of [
    ['suspend', 'suspended'],
    ['activate', 'active'],
  ] as const) {
    api.put(`/users/:user/status/${path}`, { schema: { params: UserParam, response: { 200: User } } }, async (request) => {
      const { store, user: initiator } = authOf(request);
      const before = pathResource(request, 'user');
      const user = await setUserStatus(store, before, status);
      if (before.status !== user.status) await notifyUserStatusChanged(eventNotifier(context, request.log), user, status, initiator);
      return toWireUser(user, await store.users.organizationIds(user.id));
    });
  }

  api.put(
    '/users/:user/roles',
    { schema: { params: UserParam, body: Type.Object({ roles: Type.Array(Type.String()) }), response: { 200: User } } },
    async (request) => {
      const { store } = authOf(request);
      const user = await setUserSiteRoles(store, pathResource(request, 'user'), request.body.roles);
      return toWireUser(user, await store.users.organizationIds(user.id));
    },
  );

  api.put(
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
      const user = await updateProfile(store, pathResource(request, 'user'), request.body);
      return toWireUser(user, await store.users.organizationIds(user.id));
    },
  );

  api.put(
    '/users/:user/password',
    {
      onRequest: rateLimitHook(context.rateLimits, (limits) => limits.login),
      schema: { params: UserParam, body: Type.Object({ old_password: Type.Optional(Type.String()), password: Type.String() }) },
    },
    async (request, reply) => {
      await changePassword(authOf(request).store, pathResource(request, 'user'), request.body);
      return reply.code(204).send();
    },
  );

  api.delete('/users/:user', { schema: { params: UserParam, response: { 200: Response } } }, async (request) => {
    await deleteUser(authOf(request).store, pathResource(request, 'user'));
    return { message: 'User has been deleted!' };
  });
}
