import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { createSessionKey, maxTokenLifetimeMs, createToken } from '../../domain/tokens.js';
import { msToNs } from '../../lib/duration.js';
import { NotFoundError } from '../../lib/errors.js';
import { ApiKey, ApiKeyWithOwner, CreateTokenRequest, GenerateApiKeyResponse, TokenConfig } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireApiKey, toWireApiKeyWithOwner } from '../convert/api-key.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { UserParam } from './users.js';

const KeyParams = Type.Object({ user: Type.String({ minLength: 1 }), keyid: Type.String({ minLength: 1 }) });
const KeyNameParams = Type.Object({ user: Type.String({ minLength: 1 }), keyname: Type.String({ minLength: 1 }) });

/** API tokens of users: create, list, read, delete, and the lifetime cap. */
export async function apiKeyRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post('/users/:user/keys', { schema: { params: UserParam, response: { 201: GenerateApiKeyResponse } } }, async (request, reply) => {
    const { store } = authOf(request);
    const key = await createSessionKey(store, context.values, pathResource(request, 'user'), request.ip, context.store.clock.now());
    return reply.code(201).send({ key });
  });

  api.post(
    '/users/:user/keys/tokens',
    { schema: { params: UserParam, body: CreateTokenRequest, response: { 201: GenerateApiKeyResponse } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const owner = pathResource(request, 'user');
      const key = await createToken(store, context.values, owner, request.body ?? {}, request.ip, context.store.clock.now());
      return reply.code(201).send({ key });
    },
  );

  api.get(
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
      const owner = pathResource(request, 'user');
      // Owners' usernames come with the rows, so only owners of tokens the caller may list are named.
      const rows = await store.tokens.list(request.query.include_all === true ? 'all' : owner.id);
      return rows.map(toWireApiKeyWithOwner);
    },
  );

  api.get('/users/:user/keys/tokens/tokenconfig', { schema: { params: UserParam, response: { 200: TokenConfig } } }, async (request) => ({
    max_token_lifetime: msToNs(maxTokenLifetimeMs(context.values, pathResource(request, 'user'))),
  }));

  api.get('/users/:user/keys/tokens/:keyname', { schema: { params: KeyNameParams, response: { 200: ApiKey } } }, async (request) => {
    const { store } = authOf(request);
    const [row] = await store.tokens.list(pathResource(request, 'user').id, { name: request.params.keyname });
    if (!row) throw new NotFoundError('token');
    return toWireApiKey(row);
  });

  api.get('/users/:user/keys/:keyid', { schema: { params: KeyParams, response: { 200: ApiKey } } }, async (request) => {
    const { store } = authOf(request);
    return toWireApiKey(await store.tokens.get(pathResource(request, 'user').id, request.params.keyid));
  });

  api.delete('/users/:user/keys/:keyid', { schema: { params: KeyParams } }, async (request, reply) => {
    const { store } = authOf(request);
    await store.tokens.delete(pathResource(request, 'user').id, request.params.keyid);
    return reply.code(204).send();
  });
}
