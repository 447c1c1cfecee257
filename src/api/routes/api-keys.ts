import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { maxTokenLifetimeMs, createToken } from '../../domain/tokens.js';
import { msToNs } from '../../lib/duration.js';
import { NotFoundError } from '../../lib/errors.js';
import { ApiKey, ApiKeyWithOwner, CreateTokenRequest, GenerateApiKeyResponse, TokenConfig } from '../../sdk/wire/index.js';
import { getUserById } from '../../store/queries/users.js';
import type { ApiContext } from '../context.js';
import { toWireApiKey } from '../convert/api-key.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { UserParam } from './users.js';

const KeyParams = Type.Object({ user: Type.String({ minLength: 1 }), keyid: Type.String({ minLength: 1 }) });
const KeyNameParams = Type.Object({ user: Type.String({ minLength: 1 }), keyname: Type.String({ minLength: 1 }) });

/** API tokens of users: create, list, read, delete, and the lifetime cap. */
export async function apiKeyRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);

  app.post(
    '/users/:user/keys/tokens',
    { schema: { params: UserParam, body: CreateTokenRequest, response: { 201: GenerateApiKeyResponse } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const owner = await store.getUser((request.params as { user: string }).user);
      const body = (request.body ?? {}) as CreateTokenRequest;
      const key = await createToken(store, context.values, owner, body, request.ip, context.store.clock.now());
      return reply.code(201).send({ key });
    },
  );

  app.get(
    '/users/:user/keys/tokens',
    {
      schema: {
        params: UserParam,
        querystring: Type.Object({ include_all: Type.Optional(Type.Boolean()) }),
        response: { 200: Type.Array(ApiKeyWithOwner) },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const owner = await store.getUser((request.params as { user: string }).user);
      const includeAll = (request.query as { include_all?: boolean }).include_all === true;
      const rows = await store.listTokens(includeAll ? 'all' : owner.id);
      const names = new Map<string, string>([[owner.id, owner.username]]);
      for (const row of rows) {
        // Usernames of other owners are shown only next to tokens the caller was allowed to list.
        if (!names.has(row.user_id)) names.set(row.user_id, (await getUserById(context.store.db, row.user_id))?.username ?? '');
      }
      return rows.map((row) => ({ ...toWireApiKey(row), username: names.get(row.user_id) ?? '' }));
    },
  );

  app.get('/users/:user/keys/tokens/tokenconfig', { schema: { params: UserParam, response: { 200: TokenConfig } } }, async (request) => {
    const { store } = authOf(request);
    const owner = await store.getUser((request.params as { user: string }).user);
    return { max_token_lifetime: msToNs(maxTokenLifetimeMs(context.values, owner)) };
  });

  app.get('/users/:user/keys/tokens/:keyname', { schema: { params: KeyNameParams, response: { 200: ApiKey } } }, async (request) => {
    const { store } = authOf(request);
    const params = request.params as { user: string; keyname: string };
    const owner = await store.getUser(params.user);
    const row = (await store.listTokens(owner.id)).find((token) => token.token_name === params.keyname);
    if (!row) throw new NotFoundError('token');
    return toWireApiKey(row);
  });

  app.get('/users/:user/keys/:keyid', { schema: { params: KeyParams, response: { 200: ApiKey } } }, async (request) => {
    const { store } = authOf(request);
    const params = request.params as { user: string; keyid: string };
    const owner = await store.getUser(params.user);
    return toWireApiKey(await store.getApiKey(owner.id, params.keyid));
  });

  app.delete('/users/:user/keys/:keyid', { schema: { params: KeyParams } }, async (request, reply) => {
    const { store } = authOf(request);
    const params = request.params as { user: string; keyid: string };
    const owner = await store.getUser(params.user);
    await store.deleteApiKey(owner.id, params.keyid);
    return reply.code(204).send();
  });
}
