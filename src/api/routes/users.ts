import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { passwordWeakness } from '../../domain/passwords.js';
import { CONVERT_LOGIN_COOKIE, startLoginConversion } from '../../domain/convert-login.js';
import { changePasswordWithPasscode, requestOneTimePasscode } from '../../domain/one-time-passcodes.js';
import { parseUserSearch } from '../../domain/user-search.js';
import { createFirstUser, createUser, loginWithPassword } from '../../domain/users.js';
import { HttpProblem } from '../../lib/errors.js';
import { userObject } from '../../rbac/index.js';
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
  Organization,
  UserLoginType,
} from '../../sdk/wire/index.js';
import { memberOrgIds, type Subject } from '../../rbac/index.js';
import { SYSTEM_SUBJECTS } from '../../rbac/system-subjects.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { UserRow } from '../../store/rows.js';
import type { ApiContext } from '../context.js';
import { toWireOrganization } from '../convert/organization.js';
import { toWireUser, toWireUsers } from '../convert/user.js';
import { auditRequestOf, authOf, requireAuthentication } from '../plugins/authentication.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { clearSessionCookie, setSessionCookie } from '../session-token.js';
import { rateLimitHook } from '../plugins/rate-limit.js';

export const UserParam = Type.Object({ user: Type.String({ minLength: 1 }) });

/** First-user setup and password sign-in: the user endpoints that need no session. */
export async function publicUserRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.addHook(
    'onRequest',
    rateLimitHook(context.rateLimits, (limits) => limits.api),
  );
  const loginLimit = rateLimitHook(context.rateLimits, (limits) => limits.login);
  // Nobody can be signed in before the first user exists, so these run as the first-user subject.
  const firstUser = context.store.as(SYSTEM_SUBJECTS.firstUser);
  // Whoever signs in or resets a password is anonymous until their secret checks out. A store per
  // request, which carries the request's audit facts for the entries of its sign-in or reset.
  const anonymous = (request: FastifyRequest, subject: Subject): AuthorizedStore =>
    context.store.as(subject, auditRequestOf(request, null));

  // Asked by sign-in pages and the CLI before anyone is signed in: it shows only what the deployment offers.

  api.get('/users/first', { schema: { response: { 200: Response, 404: Response } } }, async (_request, reply) => {
    if (await firstUser.users.hasFirst()) return { message: 'The initial user has already been created!' };
    return reply.code(404).send({ message: 'The initial user has not been created!' });
  });

  api.post(
    '/users/first',
    { schema: { body: CreateFirstUserRequest, response: { 201: CreateFirstUserResponse } } },
    async (request, reply) => {
      if (await firstUser.users.hasFirst()) throw new HttpProblem(409, 'The initial user has already been created.');
      const store = anonymous(request, SYSTEM_SUBJECTS.firstUser);
      const created = await createFirstUser(store, context.identity.defaultOrganization.id, request.body, context.store.clock.now());
      return reply.code(201).send(created);
    },
  );

  api.post('/users/otp/request', { onRequest: loginLimit, schema: { body: RequestOneTimePasscodeRequest } }, async (request, reply) => {
    const delivery = { values: context.values, mailer: context.mailer, log: request.log };
    await requestOneTimePasscode(
      anonymous(request, SYSTEM_SUBJECTS.passwordReset),
      delivery,
      request.body.email,
      context.store.clock.now(),
    );
    return reply.code(204).send();
  });

  api.post(
    '/users/otp/change-password',
    { onRequest: loginLimit, schema: { body: ChangePasswordWithPasscodeRequest } },
    async (request, reply) => {
      await changePasswordWithPasscode(
        anonymous(request, SYSTEM_SUBJECTS.passwordReset),
        context.values,
        request.body,
        context.store.clock.now(),
      );
      return reply.code(204).send();
    },
  );

  api.post(
    '/users/login',
    { onRequest: loginLimit, schema: { body: LoginWithPasswordRequest, response: { 201: LoginWithPasswordResponse } } },
    async (request, reply) => {
      const token = await loginWithPassword(anonymous(request, SYSTEM_SUBJECTS.passwordSignIn), context.values, request.body, {
        ipAddress: request.ip,
        now: context.store.clock.now(),
      });
      setSessionCookie(reply, token, context.values.accessUrl.startsWith('https:'));
      return reply.code(201).send({ session_token: token });
    },
  );
}

/** The user endpoints that need a session. */
export async function authenticatedUserRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const loginLimit = rateLimitHook(context.rateLimits, (limits) => limits.login);

  api.post('/users/logout', { schema: { response: { 200: Response } } }, async (request, reply) => {
    const { store, user, apiKey } = authOf(request);
    // Ending one's own session needs no permission beyond holding it: every user may delete their own keys.
    await store.sessions.signOut(user, apiKey.id);
    clearSessionCookie(reply);
    return { message: 'Logged out!' };
  });

  api.post(
    '/users/validate-password',
    { onRequest: loginLimit, schema: { body: ValidatePasswordRequest, response: { 200: ValidatePasswordResponse } } },
    async (request) => {
      const weakness = passwordWeakness(request.body.password);
      return { valid: weakness === undefined, details: weakness ?? '' };
    },
  );

  api.post(
    '/users/:user/convert-login',
    { schema: { params: UserParam, body: ConvertLoginRequest, response: { 201: ConvertLoginResponse } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const { token, ...conversion } = await startLoginConversion(
        store,
        { values: context.values, identity: context.identity },
        pathResource(request, 'user'),
        request.body,
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

  api.get('/users/:user/login-type', { schema: { params: UserParam, response: { 200: UserLoginType } } }, async (request) => {
    const { store } = authOf(request);
    const user = pathResource(request, 'user');
    if (!store.can('read_personal', userObject(user.id))) {
      throw new HttpProblem(403, "You are not authorized to view this user's login type.");
    }
    return { login_type: user.login_type };
  });

  api.get('/users/:user/organizations', { schema: { params: UserParam, response: { 200: Type.Array(Organization) } } }, async (request) => {
    const { store } = authOf(request);
    // Only the organizations the caller may read among the user's: membership alone reveals no more.
    const rows = await store.organizations.list({ memberUserId: pathResource(request, 'user').id });
    return rows.map(toWireOrganization);
  });

  api.post('/users', { schema: { body: CreateUserRequest, response: { 201: User } } }, async (request, reply) => {
    const { store } = authOf(request);
    // `user_status: null` is the reference's form asking for the default.
    const input = { ...request.body, user_status: request.body.user_status ?? undefined };
    const user = await createUser(store, context.values, context.identity.defaultOrganization.id, input, context.store.clock.now());
    return reply.code(201).send(toWireUser(user, await store.users.organizationIds(user.id)));
  });

  api.get(
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
      const { q, limit, offset, after_id } = request.query;
      const { rows, count } = await store.users.list({
        search: parseUserSearch(q),
        limit: limit ?? 0,
        offset: offset ?? 0,
        afterId: after_id,
      });
      // Memberships of the page's users only, in one query.
      return { users: toWireUsers(rows, await store.users.organizationIdsOf(rows.map((row) => row.id))), count };
    },
  );

  api.get(
    '/users/:user',
    // `me` is answered from what authentication already loaded, without reading the user again.
    { config: { loadItself: ['user'] }, schema: { params: UserParam, response: { 200: User } } },
    (request, reply) => {
      const { store, user: caller, subject } = authOf(request);
      if (request.params.user === 'me') {
        // Not async: the answer is ready, and waiting a turn for it would cost a promise per request.
        sendSerialized(reply, answerOfMe(caller, subject, reply));
        return;
      }
      return wireUserOf(store, request.params.user);
    },
  );
}

async function wireUserOf(store: AuthorizedStore, idOrName: string): Promise<User> {
  const user = await store.users.get(idOrName);
  return toWireUser(user, await store.users.organizationIds(user.id));
}

/** Sends JSON serialized already: fastify sends a string with a JSON content type as it is. */
function sendSerialized(reply: FastifyReply, json: string): void {
  void reply.type('application/json; charset=utf-8').send(json);
}

/**
 * `GET /users/me` answers as serialized, per signed-in user row and subject. Both come from the
 * session cache and are never changed in place (a changed user, membership or role loads new
 * ones), so while they stay the same so do the bytes; a new row starts a new entry, and entries
 * go with their rows.
 */
const meAnswers = new WeakMap<UserRow, { readonly subject: Subject; readonly body: string }>();

function answerOfMe(caller: UserRow, subject: Subject, reply: FastifyReply): string {
  const known = meAnswers.get(caller);
  if (known?.subject === subject) return known.body;
  // The route's own serializer for its 200 answer: the same bytes as returning the object.
  const body = reply.serialize(toWireUser(caller, memberOrgIds(subject)));
  if (typeof body !== 'string') throw new Error('GET /users/me: the response serializer gave bytes, not text');
  meAnswers.set(caller, { subject, body });
  return body;
}
