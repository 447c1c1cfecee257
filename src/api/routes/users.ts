import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { passwordWeakness } from '../../domain/passwords.js';
import { CONVERT_LOGIN_COOKIE, startLoginConversion } from '../../domain/convert-login.js';
import { changePasswordWithPasscode, requestOneTimePasscode } from '../../domain/one-time-passcodes.js';
import { parseUserSearch } from '../../domain/user-search.js';
import { createFirstUser, createUser, hasFirstUser, loginWithPassword } from '../../domain/users.js';
import { HttpProblem } from '../../lib/errors.js';
import {
  CreateFirstUserRequest,
  CreateFirstUserResponse,
  LoginWithPasswordRequest,
  LoginWithPasswordResponse,
  CreateUserRequest,
  ChangePasswordWithPasscodeRequest,
  ConvertLoginRequest,
  ConvertLoginResponse,
  RequestOneTimePasscodeRequest,
  Response,
  User,
  UsersResponse,
  ValidatePasswordRequest,
  ValidatePasswordResponse,
} from '../../sdk/wire/index.js';
import { memberOrgIds } from '../../rbac/index.js';
import { deleteApiKey } from '../../store/queries/api-keys.js';
import type { ApiContext } from '../context.js';
import { toWireUser } from '../convert/user.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { clearSessionCookie, setSessionCookie } from '../session-token.js';
import { rateLimitHook } from '../plugins/rate-limit.js';

export const UserParam = Type.Object({ user: Type.String({ minLength: 1 }) });

/** First-user setup and password sign-in: the user endpoints that need no session. */
export async function publicUserRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  app.addHook(
    'onRequest',
    rateLimitHook(context.rateLimits, (limits) => limits.api),
  );
  const loginLimit = rateLimitHook(context.rateLimits, (limits) => limits.login);
  app.get('/users/first', { schema: { response: { 200: Response, 404: Response } } }, async (_request, reply) => {
    if (await hasFirstUser(context.store)) return { message: 'The initial user has already been created!' };
    return reply.code(404).send({ message: 'The initial user has not been created!' });
  });

  app.post(
    '/users/first',
    { schema: { body: CreateFirstUserRequest, response: { 201: CreateFirstUserResponse } } },
    async (request, reply) => {
      const body = request.body as CreateFirstUserRequest;
      if (await hasFirstUser(context.store)) throw new HttpProblem(409, 'The initial user has already been created.');
      const created = await createFirstUser(context.store, context.identity.defaultOrganization.id, body);
      return reply.code(201).send(created);
    },
  );

  app.post('/users/otp/request', { onRequest: loginLimit, schema: { body: RequestOneTimePasscodeRequest } }, async (request, reply) => {
    const { email } = request.body as RequestOneTimePasscodeRequest;
    await requestOneTimePasscode(context.store, context.values, context.mailer, request.log, email);
    return reply.code(204).send();
  });

  app.post(
    '/users/otp/change-password',
    { onRequest: loginLimit, schema: { body: ChangePasswordWithPasscodeRequest } },
    async (request, reply) => {
      await changePasswordWithPasscode(context.store, context.values, request.body as ChangePasswordWithPasscodeRequest);
      return reply.code(204).send();
    },
  );

  app.post(
    '/users/login',
    { onRequest: loginLimit, schema: { body: LoginWithPasswordRequest, response: { 201: LoginWithPasswordResponse } } },
    async (request, reply) => {
      const body = request.body as LoginWithPasswordRequest;
      const token = await loginWithPassword(context.store, context.values, body.email, body.password, request.ip);
      setSessionCookie(reply, token, context.values.accessUrl.startsWith('https:'));
      return reply.code(201).send({ session_token: token });
    },
  );
}

/** The user endpoints that need a session. */
export async function authenticatedUserRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const loginLimit = rateLimitHook(context.rateLimits, (limits) => limits.login);

  app.post('/users/logout', { schema: { response: { 200: Response } } }, async (request, reply) => {
    const { apiKey } = authOf(request);
    // Ending one's own session needs no permission beyond holding it.
    await deleteApiKey(context.store.db, apiKey.id);
    await context.store.invalidateSessions({ keyId: apiKey.id });
    clearSessionCookie(reply);
    return { message: 'Logged out!' };
  });

  app.post(
    '/users/validate-password',
    { onRequest: loginLimit, schema: { body: ValidatePasswordRequest, response: { 200: ValidatePasswordResponse } } },
    async (request) => {
      const weakness = passwordWeakness((request.body as ValidatePasswordRequest).password);
      return { valid: weakness === undefined, details: weakness ?? '' };
    },
  );

  app.post(
    '/users/:user/convert-login',
    { schema: { params: UserParam, body: ConvertLoginRequest, response: { 201: ConvertLoginResponse } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const { token, ...conversion } = await startLoginConversion(
        store,
        context.values,
        context.identity,
        (request.params as { user: string }).user,
        request.body as ConvertLoginRequest,
        context.store.clock.now(),
      );
      const secure = context.values.accessUrl.startsWith('https:') ? '; Secure' : '';
      void reply.header(
        'set-cookie',
        `${CONVERT_LOGIN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Expires=${new Date(conversion.expires_at).toUTCString()}${secure}`,
      );
      return reply.code(201).send(conversion);
    },
  );

  app.post('/users', { schema: { body: CreateUserRequest, response: { 201: User } } }, async (request, reply) => {
    const { store } = authOf(request);
    const user = await createUser(
      store,
      context.values,
      context.identity.defaultOrganization.id,
      request.body as CreateUserRequest,
      context.store.clock.now(),
    );
    return reply.code(201).send(toWireUser(user, await store.getUserOrganizationIds(user.id)));
  });

  app.get(
    '/users',
    {
      schema: {
        querystring: Type.Object({
          q: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
          offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
          after_id: Type.Optional(Type.String({ format: 'uuid' })),
        }),
        response: { 200: UsersResponse },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const query = request.query as { q?: string; limit?: number; offset?: number; after_id?: string };
      const { rows, count } = await store.listUsers({
        search: parseUserSearch(query.q),
        limit: query.limit ?? 0,
        offset: query.offset ?? 0,
        afterId: query.after_id,
      });
      const organizationIds = await store.getOrganizationIdsOfUsers(rows.map((row) => row.id));
      return { users: rows.map((row) => toWireUser(row, organizationIds.get(row.id) ?? [])), count };
    },
  );

  app.get('/users/:user', { schema: { params: UserParam, response: { 200: User } } }, async (request) => {
    const { store, user: caller, subject } = authOf(request);
    const param = (request.params as { user: string }).user;
    // The caller and their memberships were loaded to authenticate them; `me` needs no more reads.
    if (param === 'me') return toWireUser(caller, memberOrgIds(subject));
    const user = await store.getUser(param);
    return toWireUser(user, await store.getUserOrganizationIds(user.id));
  });
}
